/**
 * The admin listener's Fastify app (the seed's `{verify_url}`): POST/GET /change-log-level behind
 * HTTP Basic auth, nothing else. Separate from the public app; listening is left to the caller.
 */
import Fastify, { type FastifyBaseLogger, type FastifyError, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { ConnectionCaps, ConnectionRefusalLog } from '../http/connectionCaps.js';
import { installErrorHandling } from '../http/errorHandler.js';
import { clientErrorHandler, connectRefusal, frameworkErrorHandler } from '../http/clientErrors.js';
import { checkExpectation, checkHost } from '../http/requestTarget.js';
import { REQUEST_ID_HEADER, requestIdOf } from '../http/requestId.js';
import { RequestLogController } from '../http/requestLog.js';
import { ApiError, badRequest } from '../http/errors.js';
import { adminUser, installAdminAuth, type AdminGuards } from './auth.js';
import { Credentials } from './credentials.js';
import { FailureTracker, VerificationLimiter } from './lockout.js';
import { RefusalLog } from './refusals.js';
import { registerLogLevelRoutes } from './route.js';
import type { LogLevel } from '../logger.js';

export const ADMIN_BODY_LIMIT = 1024;
const ADMIN_REQUEST_TIMEOUT_MS = 10_000;

const NOSNIFF = { 'x-content-type-options': 'nosniff' };

/**
 * The admin listener's connection caps. Fixed rather than settings: the listener serves a few
 * operators' requests, so these only bound what a client that reaches the port can hold open
 * (sockets, file descriptors) without ever touching legitimate use.
 */
export const ADMIN_CONNECTION_LIMITS = { maxConnections: 64, maxConnectionsPerAddress: 8 } as const;

export interface AdminAppOptions {
  /** `admin.*` is read here: credentials once, the lockout settings on every failure */
  config: Config;
  /** the process's root logger, shared with the public app: the one whose level is changed */
  logger: Logger;
  /** milliseconds clock of the lockout (tests) */
  nowMs?: () => number;
  /** interval of the refusal log's summaries (tests) */
  refusalLogIntervalMs?: number;
  /** interval of the connection refusal log's summaries (tests) */
  connectionLogIntervalMs?: number;
  /** told of every level change after `logger`'s (the cluster primary passes it on to its workers) */
  onLevelChange?: (level: LogLevel) => void;
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
  const budget = (maxFailures: () => number) =>
    new FailureTracker(
      () => ({
        maxFailures: maxFailures(),
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
    requestTimeout: ADMIN_REQUEST_TIMEOUT_MS,
    keepAliveTimeout: config.server.keepAliveTimeoutMs,
    // as on the public listener: the headers within the request deadline, checked every second
    http: {
      maxHeaderSize: config.server.maxHeaderBytes,
      requestTimeout: ADMIN_REQUEST_TIMEOUT_MS,
      headersTimeout: ADMIN_REQUEST_TIMEOUT_MS,
      connectionsCheckingInterval: 1000,
      // the Host rules are the public listener's, answered in the envelope (below)
      requireHostHeader: false,
    },
    frameworkErrors: frameworkErrorHandler({ maxUrlLength: config.server.maxUrlLength, headers: NOSNIFF }) as never,
    clientErrorHandler: clientErrorHandler({ maxHeaderBytes: config.server.maxHeaderBytes, headers: NOSNIFF }),
  });
  if (credentials.size === 0) {
    app.log.warn('no admin credentials configured (admin.users, admin.usersFile): /change-log-level refuses every request');
  }
  installErrorHandling(app);
  const connectionRefusals = new ConnectionRefusalLog(app.log, ADMIN_CONNECTION_LIMITS, options.connectionLogIntervalMs);
  new ConnectionCaps(ADMIN_CONNECTION_LIMITS, (reason, address, open) => connectionRefusals.record(reason, address, open)).install(
    app.server,
  );
  app.addHook('onClose', (_instance, done) => {
    connectionRefusals.close();
    done();
  });
  app.server.on('checkExpectation', (request, response) => app.server.emit('request', request, response));
  app.server.on('connect', connectRefusal(NOSNIFF));
  app.addHook('onRequest', (request, _reply, done) => {
    try {
      checkHost(request.raw);
      checkExpectation(request.raw);
    } catch (err) {
      done(err as Error);
      return;
    }
    done();
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header(REQUEST_ID_HEADER, request.id).headers(NOSNIFF);
    done(null, payload);
  });
  // the body reaches the route as it came, which answers every content type and JSON error itself
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

  const guards: AdminGuards = {
    addresses: budget(() => config.admin.maxFailures),
    users: budget(() => config.admin.maxUserFailures),
    total: budget(() => config.admin.maxTotalFailures),
    verifications: new VerificationLimiter(
      () => ({ maxConcurrent: config.admin.maxConcurrentVerifications, perSecond: config.admin.maxVerificationsPerSecond }),
      options.nowMs,
    ),
    refusals: new RefusalLog(app.log, options.refusalLogIntervalMs),
  };
  const requireAdmin = await installAdminAuth(app, credentials, guards);
  await app.register(async (scope) => {
    // thrown on to the envelope handler installed above
    scope.setErrorHandler((err: FastifyError, request) => {
      const translated = asBadRequest(err);
      if (translated instanceof ApiError && translated.statusCode === 400) {
        request.log.warn({ user: adminUser(request), clientAddress: request.ip, reason: translated.message }, 'log level change refused');
      }
      throw translated;
    });
    registerLogLevelRoutes(scope, logger, requireAdmin, options.onLevelChange);
  });
  return app;
}
