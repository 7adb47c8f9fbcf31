/**
 * The admin listener's Fastify app (the seed's `{verify_url}`): POST/GET /change-log-level behind
 * HTTP Basic auth, nothing else. Separate from the public app; listening is left to the caller.
 */
import Fastify, { type FastifyBaseLogger, type FastifyError, type FastifyInstance, type FastifyReply } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { installErrorHandling } from '../http/errorHandler.js';
import { installRequestIds, requestIdOf, RequestLogController } from '../http/requestId.js';
import { ApiError, badRequest, errorBody } from '../http/errors.js';
import { adminUser, installAdminAuth } from './auth.js';
import { Credentials } from './credentials.js';
import { FailureTracker } from './lockout.js';
import { registerLogLevelRoutes } from './route.js';

export const ADMIN_BODY_LIMIT = 1024;

export interface AdminAppOptions {
  /** `admin.*` is read here: credentials once, the lockout settings on every failure */
  config: Config;
  /** the process's root logger, shared with the public app: the one whose level is changed */
  logger: Logger;
  /** milliseconds clock of the lockout (tests) */
  nowMs?: () => number;
}

/** Fastify's body errors as the 400s of this API (it would answer 413 and 415). */
function asBadRequest(err: FastifyError): Error {
  if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return badRequest(`Request body is larger than ${ADMIN_BODY_LIMIT} bytes`);
  if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return badRequest('Content-Type must be application/json');
  return err;
}

export async function buildAdminApp(options: AdminAppOptions): Promise<FastifyInstance> {
  const { config, logger } = options;
  const credentials = Credentials.fromConfig(config.admin);
  const failures = new FailureTracker(
    () => ({
      maxFailures: config.admin.maxFailures,
      windowMs: config.admin.failureWindowMs,
      lockoutMs: config.admin.lockoutMs,
      maxClients: config.admin.maxTrackedClients,
    }),
    options.nowMs,
  );

  const app = Fastify({
    loggerInstance: logger.child({ listener: 'admin' }) as FastifyBaseLogger,
    genReqId: requestIdOf,
    logController: new RequestLogController(),
    bodyLimit: ADMIN_BODY_LIMIT,
    requestTimeout: 10_000,
    keepAliveTimeout: config.server.keepAliveTimeoutMs,
    http: { maxHeaderSize: config.server.maxHeaderBytes },
    frameworkErrors: (error, _request, reply) => {
      (reply as FastifyReply).code(error.statusCode ?? 400).send(errorBody([error.message]));
    },
  });
  if (credentials.size === 0) {
    app.log.warn('no admin credentials configured (admin.users, admin.usersFile): /change-log-level refuses every request');
  }
  installErrorHandling(app);
  installRequestIds(app);
  app.addHook('onSend', async (_request, reply, payload) => {
    reply.header('x-content-type-options', 'nosniff');
    return payload;
  });
  // the body reaches the route as it came, which answers every content type and JSON error itself
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

  const requireAdmin = await installAdminAuth(app, credentials, failures);
  await app.register(async (scope) => {
    // thrown on to the envelope handler installed above
    scope.setErrorHandler((err: FastifyError, request) => {
      const translated = asBadRequest(err);
      if (translated instanceof ApiError && translated.statusCode === 400) {
        request.log.warn({ user: adminUser(request), clientAddress: request.ip, reason: translated.message }, 'log level change refused');
      }
      throw translated;
    });
    registerLogLevelRoutes(scope, logger, requireAdmin);
  });
  return app;
}
