/** Cache-Control values the reference sends on successful responses. */
export const CacheControl = {
  default: 'public, max-age=1',
  account: 'public, max-age=2',
  immutable: 'public, max-age=600',
} as const;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Cache-Control header for 2xx responses of the route */
    cacheControl?: string;
  }
}
