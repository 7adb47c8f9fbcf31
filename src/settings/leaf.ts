/**
 * The building blocks of the settings table (table.ts): each setting is a leaf that knows its
 * type, default, bounds, the reference's key for it and its one-line meaning. The Config type, the
 * defaults, the `LQS_*` names, the reference's names and validation are all read off the leaves.
 */

export type Kind = 'number' | 'bigint' | 'boolean' | 'string' | 'strings' | 'numbers' | 'headers' | 'pathHeaders';

/** HTTP response headers: name → value. */
export type Headers = Record<string, string>;

export interface Leaf<T> {
  readonly kind: Kind;
  readonly default: T;
  /** one line: what the setting does (the README's table is generated from it) */
  readonly doc: string;
  /** the default as the README shows it, when the value alone says it badly (`64 MiB`) */
  readonly shown?: string;
  /** numbers: the accepted range, and what the value must be, for the error message */
  readonly range?: { readonly min?: number; readonly max?: number; readonly integer?: boolean; readonly is: string };
  /** strings (or each item of a list): the accepted values */
  readonly oneOf?: readonly string[];
  /** a PostgreSQL URL (or a list of them) when set */
  readonly postgresUrl?: boolean;
  /** the origin of an HTTP service (`http[s]://host[:port]`, no path) when set */
  readonly httpOrigin?: boolean;
  /** the reference's key under `hiero.mirror.rest` (`common.` for `hiero.mirror.common`) */
  readonly ref?: string;
  /** the reference's value is a duration (`60d`, `35m`) and ours nanoseconds */
  readonly refDuration?: boolean;
  /** the reference's value is an enum constant (`VERIFY_CA`), ours its lower-case, dashed name (`verify-ca`) */
  readonly refEnum?: boolean;
  /** a secret: masked wherever the configuration is printed */
  readonly secret?: boolean;
}

type Options = Omit<Leaf<unknown>, 'kind' | 'default' | 'doc'>;

const leaf =
  <T>(kind: Kind) =>
  (value: T, doc: string, options: Options = {}): Leaf<T> => ({ kind, default: value, doc, ...options });

export const num = leaf<number>('number');
export const big = leaf<bigint>('bigint');
export const bool = leaf<boolean>('boolean');
export const str = leaf<string>('string');
export const strs = leaf<string[]>('strings');
export const nums = leaf<number[]>('numbers');
/** Headers (a JSON object in a variable). */
export const headers = leaf<Headers>('headers');
/** Headers by route path (a JSON object of JSON objects in a variable). */
export const pathHeaders = leaf<Record<string, Headers>>('pathHeaders');
/** A string that must be one of `values`. */
export const choice = <const V extends string>(values: readonly V[], value: V, doc: string, options: Options = {}): Leaf<V> => ({
  kind: 'string',
  default: value,
  doc,
  oneOf: values,
  ...options,
});

/** A port: an integer from 0 to 65535. */
export const port = (value: number, doc: string, options: Options = {}): Leaf<number> =>
  num(value, doc, { range: { min: 0, max: 65535, integer: true, is: 'a port (an integer from 0 to 65535)' }, ...options });

export function isLeaf(node: unknown): node is Leaf<unknown> {
  return typeof node === 'object' && node !== null && 'kind' in node && 'doc' in node;
}

type DeepReadonly<T> = T extends readonly (infer I)[]
  ? readonly I[]
  : T extends object
    ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
    : T;

/** The configuration a settings tree describes, read-only all the way down. */
export type ConfigOf<T> = { readonly [K in keyof T]: T[K] extends Leaf<infer V> ? DeepReadonly<V> : ConfigOf<T[K]> };

/** The same, with every setting optional: overrides on top of a configuration. */
export type OverridesOf<T> = { readonly [K in keyof T]?: T[K] extends Leaf<infer V> ? V : OverridesOf<T[K]> };
