/** Contract calls and creations (HAPI and Ethereum), with their results and the child record of a system-contract call. */
import { TransactionType as TYPE } from '../../src/domain/transactionTypes.js';
import { contractLogs, ethereumTransaction, stateChanges, TINYBARS_PER_GAS } from './contractEffects.js';
import { bytea, byteaHex, NULL } from './copyText.js';
import { CONTRACT_REVERT_EXECUTED, SUCCESS, type LedgerWriter, type Emitted } from './ledgerWriter.js';
import { nsText } from './time.js';
import { HTS_SYSTEM_CONTRACT, HUBS } from './layout.js';

const SELECTORS = ['a9059cbb', '095ea7b3', '38ed1739', '40c10f19', 'd0e30db0', 'ac9650d8', '23b872dd'];
const GAS_LIMITS = [50_000, 100_000, 300_000, 400_000, 1_000_000, 3_000_000, 15_000_000];

export function contractTransaction(tx: LedgerWriter, mode: 'call' | 'ethereum' | 'create' | 'ethereumCreate'): void {
  const { w, rng, out } = tx;
  const ethereum = mode === 'ethereum' || mode === 'ethereumCreate';
  const create = mode === 'create' || mode === 'ethereumCreate';
  const sender = ethereum ? w.pickEcdsaAccount(rng) : w.pickAccount(rng);
  const payer = ethereum && rng.chance(0.95) ? HUBS.relay : sender;
  const success = create || !rng.chance(0.08);
  const result = success ? SUCCESS : CONTRACT_REVERT_EXECUTED;

  let contract: number;
  if (create) {
    contract = w.layout.firstContract + w.existingContracts++;
    w.createdAt[contract] = tx.off;
    w.versionStart[contract] = tx.off;
    w.balanceAt[contract] = tx.off;
    w.ethNonce[contract] = 1;
  } else {
    contract = w.pickContract(rng);
  }

  const parameters = create
    ? Buffer.concat([Buffer.from('60806040', 'hex'), rng.bytes(200 + rng.int(600))])
    : Buffer.concat([Buffer.from(rng.pick(SELECTORS), 'hex'), rng.bytes(32 * rng.int(5))]);
  let callDataFile = 0;
  if (ethereum && !create && rng.chance(0.01) && w.filesUsed < w.layout.maxFiles) {
    callDataFile = writeCallDataFile(tx, payer, parameters);
    tx.advanceTo(tx.off + 1_000);
  }

  const gasLimit = rng.pick(GAS_LIMITS);
  const gasUsed = Math.floor(gasLimit * (0.25 + 0.65 * rng.float()));
  const gasConsumed = Math.floor(gasUsed * (0.92 + 0.08 * rng.float()));
  const amount = success && !create && rng.chance(0.15) ? 1 + rng.int(1e9) : 0;
  if (amount > 0) {
    tx.credit(sender, -amount);
    tx.credit(contract, amount);
  }

  const involved = [contract, payer];
  const logs = success ? contractLogs(tx, contract, payer, involved) : { bloom: null as Uint8Array | null };
  stateChanges(tx, contract, payer, involved, success);

  const ethHash = ethereum ? rng.bytes(32).toString('hex') : '';
  const type = ethereum ? TYPE.ETHEREUMTRANSACTION : create ? TYPE.CONTRACTCREATEINSTANCE : TYPE.CONTRACTCALL;
  const emitted = tx.emit({ type, result, payer, entity: contract, fee: gasUsed * TINYBARS_PER_GAS + 50_000, memo: false });
  const hash32 = ethereum ? ethHash : emitted.hashHex.slice(0, 64);
  const tsText = nsText(tx.off);
  const revert = '08c379a0' + '0'.repeat(62) + '20' + '0'.repeat(62) + '0d' + Buffer.from('not permitted').toString('hex').padEnd(64, '0');
  const callResult = !success ? byteaHex(revert) : rng.chance(0.005) ? NULL : bytea(rng.bytes(32 * (1 + rng.int(2))));
  tx.counts.contractResults++;
  out.contractResult.add(
    tsText,
    w.idText(contract),
    w.idText(payer),
    w.idText(sender),
    String(amount),
    String(gasLimit),
    String(gasUsed),
    String(gasConsumed),
    logs.bloom ? bytea(logs.bloom) : byteaHex(''),
    callResult,
    callDataFile ? byteaHex('') : bytea(parameters),
    NULL,
    success ? NULL : '0x' + revert,
    NULL,
    create ? `{${w.idText(contract)}}` : '{}',
    byteaHex(hash32),
    String(emitted.index),
    '0',
    String(result),
  );
  out.contractTransactionHash.add(tsText, byteaHex(hash32), w.idText(contract), w.idText(payer), String(result));
  contractTransactions(tx, involved, payer);
  if (ethereum)
    ethereumTransaction(tx, payer, sender, contract, create, ethHash, gasLimit, amount, callDataFile ? null : parameters, callDataFile);
  tx.blockGas += gasUsed;
  if (success && !create && rng.chance(0.15)) precompileChild(tx, payer, contract, emitted);
}

/** A FILECREATE holding the call data of a large Ethereum transaction; returns the file number. */
function writeCallDataFile(tx: LedgerWriter, payer: number, content: Buffer): number {
  const { w } = tx;
  const file = w.layout.firstFile + w.filesUsed++;
  w.createdAt[file] = tx.off;
  w.versionStart[file] = tx.off;
  tx.out.fileData.add(nsText(tx.off), w.idText(file), String(TYPE.FILECREATE), bytea(content));
  tx.emit({ type: TYPE.FILECREATE, result: SUCCESS, payer, entity: file, fee: 5_000_000, memo: false });
  return file;
}

/** One contract_transaction row per involved entity, each carrying the whole list. */
function contractTransactions(tx: LedgerWriter, involved: number[], payer: number): void {
  const tsText = nsText(tx.off);
  const payerText = tx.w.idText(payer);
  const ids = `{${involved.map((id) => tx.w.idText(id)).join(',')}}`;
  for (const id of involved) tx.out.contractTransaction.add(tsText, tx.w.idText(id), payerText, ids);
}

/** A child record (nonce 1) of a call into the token service's system contract. */
function precompileChild(tx: LedgerWriter, payer: number, contract: number, parent: Emitted): void {
  const { w, rng, out } = tx;
  const parentTs = tx.off;
  tx.advanceTo(tx.off + 1);
  const emitted = tx.emit({
    type: TYPE.CRYPTOTRANSFER,
    result: SUCCESS,
    payer,
    fee: 0,
    nonce: 1,
    parent: parentTs,
    validStart: parent.validStart,
    node: parent.node,
    memo: false,
  });
  const tsText = nsText(tx.off);
  const hash32 = emitted.hashHex.slice(0, 64);
  const gasUsed = 10_000 + rng.int(20_000);
  tx.counts.contractResults++;
  out.contractResult.add(
    tsText,
    w.idText(HTS_SYSTEM_CONTRACT),
    w.idText(payer),
    w.idText(contract),
    '0',
    String(gasUsed * 2),
    String(gasUsed),
    String(gasUsed),
    byteaHex(''),
    bytea(rng.bytes(32)),
    bytea(Buffer.concat([Buffer.from('eca81d42', 'hex'), rng.bytes(96)])),
    NULL,
    NULL,
    NULL,
    '{}',
    byteaHex(hash32),
    String(emitted.index),
    '1',
    String(SUCCESS),
  );
  out.contractTransactionHash.add(tsText, byteaHex(hash32), w.idText(HTS_SYSTEM_CONTRACT), w.idText(payer), String(SUCCESS));
  contractTransactions(tx, [HTS_SYSTEM_CONTRACT, payer], payer);
  tx.blockGas += gasUsed;
}
