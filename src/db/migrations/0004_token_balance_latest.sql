-- An account's token balances per token, newest first, with the balance, read without the table.
-- The historical balance takes each token's latest row in a month of snapshots: through the primary
-- key it fetched every row from the heap, where snapshots scatter an account's rows (139 rows, 143
-- pages for an active account of the large bench dataset; 12,445 rows, 9,277 pages and ~50 ms for
-- the whale), and sorted them. In this order the rows come sorted and from a few index pages.
create index if not exists token_balance__account_token_latest on token_balance (account_id, token_id, consensus_timestamp desc)
  include (balance);
