/** What the bench measures: the six endpoints and the two ceilings. */

export const ENDPOINT_TARGETS = [
  'accounts',
  'account-without-transactions',
  'account-nfts',
  'blocks',
  'block',
  'contract-result',
  'contract-result-by-timestamp',
] as const;
export const CEILING_TARGETS = ['ceiling-json', 'ceiling-pk'] as const;
export const TARGET_NAMES = [...ENDPOINT_TARGETS, ...CEILING_TARGETS] as const;

export type TargetName = (typeof TARGET_NAMES)[number];

export const TARGET_ROUTES: Record<TargetName, string> = {
  accounts: 'GET /api/v1/accounts/{idOrAliasOrEvmAddress}',
  'account-without-transactions': 'GET /api/v1/accounts/{idOrAliasOrEvmAddress}?transactions=false',
  'account-nfts': 'GET /api/v1/accounts/{id}/nfts',
  blocks: 'GET /api/v1/blocks',
  block: 'GET /api/v1/blocks/{hashOrNumber}',
  'contract-result': 'GET /api/v1/contracts/results/{transactionIdOrHash}',
  'contract-result-by-timestamp': 'GET /api/v1/contracts/{contractIdOrAddress}/results/{timestamp}',
  'ceiling-json': 'ceiling: trivial JSON route',
  'ceiling-pk': 'ceiling: one primary-key SELECT',
};

/** One request of a mix; `expect` is `ok` for any 2xx (contract results may be 206). */
export interface MixRequest {
  path: string;
  expect: 'ok' | 400 | 404;
  kind: string;
}

export function meetsExpectation(status: number, expect: MixRequest['expect']): boolean {
  return expect === 'ok' ? status >= 200 && status < 300 : status === expect;
}
