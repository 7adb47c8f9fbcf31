-- The shapes of a mirror node database that change what the service reads, so that the default
-- test lanes meet them too (the mirror node's own schema is tested in its own lane).

-- Its DOMAIN types over bigint, on the columns where it declares them. A column of a domain type
-- reads as its base type, but an expression over it, such as array_agg(amount), has the
-- array-of-domain type, whose type id differs in every database. The base type stays bigint, so
-- no table is rewritten and the indexes are kept.
do $$ begin
  create domain entity_id as bigint;
exception when duplicate_object then null; end $$;
do $$ begin
  create domain hbar_tinybars as bigint;
exception when duplicate_object then null; end $$;
do $$ begin
  create domain nanos_timestamp as bigint;
exception when duplicate_object then null; end $$;

alter table account_balance
  alter column account_id type entity_id,
  alter column balance type hbar_tinybars,
  alter column consensus_timestamp type nanos_timestamp;
alter table contract_result
  alter column consensus_timestamp type nanos_timestamp;
alter table crypto_transfer
  alter column amount type hbar_tinybars,
  alter column consensus_timestamp type nanos_timestamp,
  alter column entity_id type entity_id;
alter table file_data
  alter column consensus_timestamp type nanos_timestamp,
  alter column entity_id type entity_id;
alter table token
  alter column token_id type entity_id,
  alter column treasury_account_id type entity_id;
alter table token_balance
  alter column account_id type entity_id,
  alter column token_id type entity_id;
alter table token_history
  alter column token_id type entity_id,
  alter column treasury_account_id type entity_id;
alter table token_transfer
  alter column account_id type entity_id,
  alter column amount type hbar_tinybars,
  alter column token_id type entity_id;
alter table transaction
  alter column entity_id type entity_id,
  alter column max_fee type hbar_tinybars,
  alter column node_account_id type entity_id,
  alter column payer_account_id type entity_id;

-- Nullable there: a token association made before the mirror node recorded how it was made.
alter table token_account alter column automatic_association drop not null;
alter table token_account_history alter column automatic_association drop not null;

-- Columns of its record_file that newer mirror nodes fill (block streams).
alter table record_file
  add column if not exists round_start bigint,
  add column if not exists round_end bigint,
  add column if not exists previous_wrapped_record_block_hash bytea,
  add column if not exists wrapped_record_block_hash bytea,
  add column if not exists receipts_root bytea;
