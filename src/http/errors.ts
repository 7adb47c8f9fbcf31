/** API errors and the reference's error envelope `{"_status":{"messages":[{"message":…}]}}`. */
export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly messages: string[],
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

export function serviceUnavailable(): ApiError {
  return new ApiError(503, ['Service unavailable']);
}

export interface ErrorBody {
  _status: { messages: { message: string }[] };
}

export function errorBody(messages: readonly string[]): ErrorBody {
  return { _status: { messages: messages.map((message) => ({ message })) } };
}
