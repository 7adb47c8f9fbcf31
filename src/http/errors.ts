/**
 * API errors and the reference's error envelope `{"_status":{"messages":[{"message":…}]}}`. Every
 * error answer is an ApiError thrown (or passed to `done`) and rendered by `sendError`, from the
 * error handler or, for what Fastify answers before any hook, from its frameworkErrors callback.
 */
import type { FastifyReply } from 'fastify';

export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly messages: string[],
    /** headers of this answer beside those every response carries (`www-authenticate`, a lockout's `retry-after`, …) */
    readonly headers?: Readonly<Record<string, string>>,
  ) {
    // an answer, not a fault: nothing reads its stack, and capturing one costs every 4xx more than the rest of its handling
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(messages.join('; '));
    Error.stackTraceLimit = stackTraceLimit;
    this.name = 'ApiError';
  }
}

export const invalidParameterMessage = (name: string) => `Invalid parameter: ${name}`;
export const unknownParameterMessage = (name: string) => `Unknown query parameter: ${name}`;

export function badRequest(...messages: string[]): ApiError {
  return new ApiError(400, messages);
}

export function invalidParameter(...names: string[]): ApiError {
  return badRequest(...names.map(invalidParameterMessage));
}

export function uriTooLong(maxUrlLength: number): ApiError {
  return new ApiError(414, [`URI too long: at most ${maxUrlLength} characters`]);
}

export function notFound(message = 'Not found'): ApiError {
  return new ApiError(404, [message]);
}

/**
 * An EVM address or alias that more than one live entity holds: the reference answers 500 with its
 * generic message, as for an internal fault.
 */
export function ambiguousAddress(): ApiError {
  return new ApiError(500, ['Internal error']);
}

/** 503: the database cannot answer, or the process cannot take the request; `Retry-After` is added to every 503 by the pipeline. */
export function serviceUnavailable(headers?: Readonly<Record<string, string>>): ApiError {
  return new ApiError(503, ['Service unavailable'], headers);
}

export interface ErrorBody {
  _status: { messages: { message: string }[] };
}

export function errorBody(messages: readonly string[]): ErrorBody {
  return { _status: { messages: messages.map((message) => ({ message })) } };
}

/** Writes `err` as the answer: its status, its headers and the envelope of its messages. */
export function sendError(reply: FastifyReply, err: ApiError): FastifyReply {
  reply.code(err.statusCode);
  if (err.headers) reply.headers(err.headers);
  return reply.send(errorBody(err.messages));
}
