/** Record file (block) values as the API shows them. */

/** Gas used by a block; the stored -1 means unknown. */
export function blockGasUsed(gasUsed: bigint | null): bigint | null {
  return gasUsed === null || gasUsed === -1n ? null : gasUsed;
}
