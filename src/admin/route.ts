/** GET and POST /change-log-level: read and change the level of every logger of the process. */
import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import type { Logger } from 'pino';
import { badRequest } from '../http/errors.js';
import { currentLogLevel, isLogLevel, LOG_LEVELS, setLogLevel, type LogLevel } from '../logger.js';
import { adminUser } from './auth.js';

const currentLevelSchema = { type: 'object', required: ['level'], properties: { level: { type: 'string' } } };

/** The level a POST asks for; 400 for anything but a JSON object `{"level": <one of LOG_LEVELS>}`. */
export function requestedLevel(contentType: string | undefined, body: unknown): LogLevel {
  const mediaType = contentType?.split(';')[0]?.trim().toLowerCase();
  if (mediaType !== 'application/json') throw badRequest('Content-Type must be application/json');
  const text = Buffer.isBuffer(body) ? body.toString('utf8') : '';
  if (text.trim() === '') throw badRequest('Request body is missing: expected {"level": "<level>"}');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw badRequest('Request body is not valid JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw badRequest('Request body must be a JSON object: expected {"level": "<level>"}');
  const level = (parsed as { level?: unknown }).level;
  const messages: string[] = [];
  if (!Object.hasOwn(parsed, 'level')) messages.push('Missing field: level');
  else if (!isLogLevel(level)) messages.push(`Invalid level: must be one of ${LOG_LEVELS.join(', ')}`);
  for (const key of Object.keys(parsed)) if (key !== 'level') messages.push(`Unknown field: ${key.slice(0, 100)}`);
  if (messages.length > 0 || !isLogLevel(level)) throw badRequest(...messages);
  return level;
}

export function registerLogLevelRoutes(
  app: FastifyInstance,
  root: Logger,
  requireAdmin: onRequestHookHandler,
  onChange?: (level: LogLevel) => void,
): void {
  app.get('/change-log-level', { onRequest: requireAdmin, schema: { response: { 200: currentLevelSchema } } }, async () => ({
    level: currentLogLevel(root),
  }));

  app.post('/change-log-level', { onRequest: requireAdmin }, async (request, reply) => {
    const level = requestedLevel(request.headers['content-type'], request.body);
    const from = currentLogLevel(root);
    // logged at warn under whichever of the two levels lets it through
    const logChange = () => request.log.warn({ user: adminUser(request), clientAddress: request.ip, from, to: level }, 'log level changed');
    if (level === 'error') logChange();
    setLogLevel(root, level);
    onChange?.(level);
    if (level !== 'error') logChange();
    return reply.type('text/plain; charset=utf-8').send(`Logging level changed to: ${level}`);
  });
}
