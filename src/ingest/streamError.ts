/** Why a stream file was refused; `reason` is one line naming the file and what is wrong with it. */
export class StreamFileError extends Error {
  constructor(
    readonly file: string,
    readonly reason: string,
  ) {
    super(`${file}: ${reason}`);
    this.name = 'StreamFileError';
  }
}
