/**
 * HTTP Basic authentication of the admin routes (@fastify/basic-auth) with a lockout of clients
 * that fail repeatedly. Every refusal is logged with the user name tried and the client address.
 */
import basicAuth from '@fastify/basic-auth';
import type { FastifyInstance, FastifyRequest, onRequestHookHandler } from 'fastify';
import { errorBody } from '../http/errors.js';
import type { Credentials } from './credentials.js';
import type { FailureTracker } from './lockout.js';

export const REALM = 'ledger-query-service admin';

/** the user name each request presented (set once its header parsed) */
const presentedUser = new WeakMap<FastifyRequest, string>();

/** The user an authenticated request came as. */
export function adminUser(request: FastifyRequest): string | undefined {
  return presentedUser.get(request);
}

const loggable = (user: string | undefined) => (user === undefined ? undefined : user.slice(0, 100));

function unauthorized(message: string): Error {
  return Object.assign(new Error(message), { statusCode: 401 });
}

/** Registers Basic auth on `app` and returns the onRequest hook that guards a route. */
export async function installAdminAuth(app: FastifyInstance, credentials: Credentials, failures: FailureTracker): Promise<onRequestHookHandler> {
  await app.register(basicAuth, {
    authenticate: { realm: REALM },
    validate: async (user, password, request) => {
      presentedUser.set(request, user);
      if (credentials.size === 0) throw unauthorized('No admin credentials are configured: every request is refused');
      if (!(await credentials.verify(user, password))) throw unauthorized('Invalid user name or password');
    },
  });
  const checkCredentials = app.basicAuth as onRequestHookHandler;

  return function requireAdmin(request, reply, done) {
    const clientAddress = request.ip;
    const lockedMs = failures.lockedFor(clientAddress);
    if (lockedMs > 0) {
      const seconds = Math.ceil(lockedMs / 1000);
      request.log.warn({ clientAddress, retryAfterSeconds: seconds }, 'admin request refused: client locked out after repeated authentication failures');
      reply
        .code(429)
        .header('retry-after', String(seconds))
        .send(errorBody([`Too many failed authentication attempts; retry after ${seconds} seconds`]));
      return;
    }
    // counted as a failure before the check, so that parallel guesses cannot outrun the lockout; a success forgets it
    const lockedOut = failures.fail(clientAddress);
    checkCredentials.call(app, request, reply, (err?: Error) => {
      if (err) {
        request.log.warn({ user: loggable(presentedUser.get(request)), clientAddress, reason: err.message, lockedOut }, 'admin authentication failed');
        done(err);
        return;
      }
      failures.succeed(clientAddress);
      done();
    });
  };
}
