/** node-postgres's value mapping for Bind (exported by the package as `pg/lib/utils.js`; @types/pg does not declare it). */
declare module 'pg/lib/utils.js' {
  const utils: { prepareValue(value: unknown): unknown };
  export default utils;
}
