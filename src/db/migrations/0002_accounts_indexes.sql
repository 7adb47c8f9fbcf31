-- Indexes of our own for GET /api/v1/accounts/{id} (the mirror node's tables and columns are unchanged).

-- An account's transactions of one type: the payer source under a transactiontype filter.
create index if not exists transaction__payer_type_timestamp on transaction (payer_account_id, type, consensus_timestamp);

-- A type's transactions in timestamp order with their payers, read without the table (merges and type probes).
create index if not exists transaction__type_timestamp_payer on transaction (type, consensus_timestamp) include (payer_account_id);

-- An entity's entity_transaction rows of one type.
create index if not exists entity_transaction__entity_type_timestamp on entity_transaction (entity_id, type, consensus_timestamp)
  include (payer_account_id);

-- An account's transfers in transactions others pay (those it pays are found through its transactions).
create index if not exists crypto_transfer__entity_timestamp_nonself on crypto_transfer (entity_id, consensus_timestamp)
  include (payer_account_id) where entity_id <> payer_account_id and entity_id <> 98;
create index if not exists token_transfer__account_timestamp_nonself on token_transfer (account_id, consensus_timestamp)
  include (payer_account_id) where account_id <> payer_account_id;
