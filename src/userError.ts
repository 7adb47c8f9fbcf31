/** A failure whose message is already the one line a user should read (the command line prints it as is). */
export class UserError extends Error {
  override name = 'UserError';
}
