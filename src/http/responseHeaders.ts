/**
 * The headers of a successful API response: the route's Cache-Control (the reference's own
 * defaults, src/http/cacheControl.ts), under the operator's `response.headers.default` and then
 * `response.headers.path` for the route, as the reference merges them (default, then its path's).
 * A path is the reference's route (`/api/v1/blocks/:hashOrNumber`): parameters match whatever
 * their name, so that its configuration names our routes.
 */
import type { FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { CacheControl } from './cacheControl.js';

/** A route path with its parameters' names left out and no trailing slash: `/api/v1/blocks/:`. */
export const routeShape = (path: string): string => path.replace(/\/:[^/]+/g, '/:').replace(/(.)\/$/, '$1');

export class ResponseHeaders {
  private readonly byRoute: Map<string, Readonly<Record<string, string>>>;

  constructor(private readonly settings: Config['response']['headers']) {
    this.byRoute = new Map(Object.entries(settings.path).map(([path, headers]) => [routeShape(path), headers]));
  }

  /**
   * The headers a 2xx answer of `request`'s route carries. The configured ones go to the API's
   * routes (those with a Cache-Control of their own), not to the docs page and its assets, which
   * the reference serves outside its response handler too.
   */
  of(request: FastifyRequest): Record<string, string> {
    const own = request.routeOptions.config.cacheControl;
    if (own === undefined) return { 'cache-control': CacheControl.default };
    const route = request.routeOptions.url;
    // a route's own Cache-Control other than the default is one of the reference's default path headers
    return {
      'cache-control': CacheControl.default,
      ...this.settings.default,
      ...(own !== CacheControl.default ? { 'cache-control': own } : {}),
      ...(route ? this.byRoute.get(routeShape(route)) : undefined),
    };
  }
}
