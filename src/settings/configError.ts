/** A setting that cannot be used; the message names it (and the variable or file it came from) and the fix. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}
