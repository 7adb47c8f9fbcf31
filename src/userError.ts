/**
 * A failure whose message alone tells the user what is wrong and what to do about it: the command
 * line prints it as one line, without a stack trace, and exits non-zero.
 */
export class UserFacingError extends Error {
  override name = 'UserFacingError';
}
