/**
 * Answers to what never becomes a request: the HTTP parser's errors (malformed request, headers
 * too large, request not received in time) and the router's (a path too long or not decodable).
 * They carry the error envelope and the headers every response carries, and never echo the request.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, errorBody, sendError, uriTooLong } from './errors.js';
import { REQUEST_ID_HEADER } from './requestId.js';

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  414: 'URI Too Long',
  431: 'Request Header Fields Too Large',
};

/**
 * Writes an error envelope on a socket no request object will answer and closes it, with the
 * headers every response carries and a generated request id (nothing of the request is echoed).
 */
function writeRawError(socket: Duplex, status: number, message: string, headers: Readonly<Record<string, string>>): void {
  const body = JSON.stringify(errorBody([message]));
  const all = {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(body)),
    ...headers,
    [REQUEST_ID_HEADER]: randomUUID(),
    connection: 'close',
  };
  const head = Object.entries(all)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.write(`HTTP/1.1 ${status} ${STATUS_TEXT[status]}\r\n${head}\r\n${body}`);
}

/**
 * Fastify's clientErrorHandler: writes the answer on the socket and closes it. `headers` are those
 * every response of the listener carries; `maxHeaderBytes` is named in the 431 message.
 */
export function clientErrorHandler(options: { maxHeaderBytes: number; headers: Readonly<Record<string, string>> }) {
  return (err: Error & { code?: string }, socket: Duplex): void => {
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    let status = 400;
    let message = 'Bad request';
    if (err.code === 'HPE_HEADER_OVERFLOW') {
      status = 431;
      message = `Request headers too large: at most ${options.maxHeaderBytes} bytes`;
    } else if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT' || err.code === 'HPE_HEADER_TIMEOUT') {
      status = 408;
      message = 'Request timeout';
    }
    // a response already under way on the socket (pipelining) cannot be followed by another
    const current = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (socket.writable && !current?.headersSent) writeRawError(socket, status, message, options.headers);
    socket.destroy();
  };
}

/**
 * The server's 'connect' listener: a CONNECT request (a proxy tunnel), which Node hands to this
 * listener instead of the app and would otherwise close unanswered, gets the envelope's 405.
 */
export function connectRefusal(headers: Readonly<Record<string, string>>) {
  return (_request: IncomingMessage, socket: Duplex): void => {
    socket.on('error', () => undefined);
    if (socket.writable) writeRawError(socket, 405, 'Method not allowed: CONNECT', { ...headers, allow: 'GET, HEAD, OPTIONS' });
    socket.end();
  };
}

/**
 * Fastify's frameworkErrors: the router's errors as envelopes, without the path they concern. They
 * are sent before any hook runs, so `headers` (those every response carries) are set here.
 */
export function frameworkErrorHandler(options: { maxUrlLength: number; headers: Readonly<Record<string, string>> }) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    let answer: ApiError;
    if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') answer = uriTooLong(options.maxUrlLength);
    else if (error.code === 'FST_ERR_BAD_URL') answer = new ApiError(400, ['Invalid URL: it is not correctly percent-encoded']);
    else {
      const status = error.statusCode ?? 400;
      answer = new ApiError(status >= 400 && status < 500 ? status : 400, ['Bad request']);
    }
    reply.headers(options.headers);
    reply.header(REQUEST_ID_HEADER, request.id);
    void sendError(reply, answer);
  };
}
