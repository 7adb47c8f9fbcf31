/**
 * HTTP Basic authentication of the admin routes (@fastify/basic-auth) with lockouts: of a client
 * address, of a user name and of the whole listener, each after its own count of failures, so that
 * rotating source addresses or user names cannot escape the budget; and a bound on scrypt
 * verifications so that guessing cannot slow the public API. Every refusal is logged with the user
 * name tried and the client address.
 */
import basicAuth from '@fastify/basic-auth';
import type { FastifyInstance, FastifyRequest, onRequestHookHandler } from 'fastify';
import { basicCredentials } from '../http/basicAuth.js';
import { ApiError } from '../http/errors.js';
import type { Credentials } from './credentials.js';
import type { FailureTracker, VerificationLimiter } from './lockout.js';
import type { RefusalLog } from './refusals.js';

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

/** The failure budgets of the admin listener: per client address, per user name, and in total. */
export interface AdminGuards {
  addresses: FailureTracker;
  users: FailureTracker;
  total: FailureTracker;
  verifications: VerificationLimiter;
  /** where 429 refusals are logged, in bounded volume */
  refusals: RefusalLog;
}

/** the key of the total budget */
const ALL = '*';

/** Registers Basic auth on `app` and returns the onRequest hook that guards a route. */
export async function installAdminAuth(app: FastifyInstance, credentials: Credentials, guards: AdminGuards): Promise<onRequestHookHandler> {
  await app.register(basicAuth, {
    authenticate: { realm: REALM },
    validate: async (user, password, request) => {
      presentedUser.set(request, user);
      if (credentials.size === 0) throw unauthorized('No admin credentials are configured: every request is refused');
      if (!(await credentials.verify(user, password))) throw unauthorized('Invalid user name or password');
    },
  });
  const checkCredentials = app.basicAuth as onRequestHookHandler;
  const { addresses, users, total, verifications, refusals } = guards;

  return function requireAdmin(request, reply, done) {
    const clientAddress = request.ip;
    const user = basicCredentials(request.headers.authorization)?.user;
    const refuse = (seconds: number, message: string, reason: string) => {
      refusals.record(request.log, { user: loggable(user), clientAddress, reason, retryAfterSeconds: seconds });
      done(new ApiError(429, [message], { 'retry-after': String(seconds) }));
    };
    const locks: [number, string][] = [
      [addresses.lockedFor(clientAddress), 'client address locked out after repeated authentication failures'],
      [user === undefined ? 0 : users.lockedFor(user), 'user name locked out after repeated authentication failures'],
      [total.lockedFor(ALL), 'admin listener locked out after repeated authentication failures'],
    ];
    const [lockedMs, reason] = locks.reduce((a, b) => (b[0] > a[0] ? b : a));
    if (lockedMs > 0) {
      const seconds = Math.ceil(lockedMs / 1000);
      refuse(seconds, `Too many failed authentication attempts; retry after ${seconds} seconds`, reason);
      return;
    }
    // every verification runs scrypt (plain-text and unknown users a dummy one): they are bounded in
    // number and rate, whichever user is named; beyond the bound nothing is verified or counted
    const costly = credentials.size > 0 && user !== undefined;
    if (costly && !verifications.tryAcquire()) {
      refuse(1, 'Too many authentication attempts at once; retry after 1 second', 'password verifications at their bound');
      return;
    }
    // counted as a failure before the check, so that parallel guesses cannot outrun the lockout; a success takes it back
    const lockedOut = [addresses.fail(clientAddress), user !== undefined && users.fail(user), total.fail(ALL)].some(Boolean);
    checkCredentials.call(app, request, reply, (err?: Error) => {
      if (costly) verifications.release();
      if (err) {
        request.log.warn(
          { user: loggable(presentedUser.get(request)), clientAddress, reason: err.message, lockedOut },
          'admin authentication failed',
        );
        done(err);
        return;
      }
      addresses.succeed(clientAddress);
      if (user !== undefined) users.succeed(user);
      total.forgive(ALL);
      done();
    });
  };
}
