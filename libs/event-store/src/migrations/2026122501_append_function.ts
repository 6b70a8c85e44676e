import { Kysely, sql } from 'kysely';

/**
 * The append statement (append-statement.ts) as a function, `flex_append`: the same statement, but
 * PL/pgSQL keeps its plan for the session, where sent as text it was parsed, analysed and planned on
 * every append (a recursive, data-modifying CTE: on PGlite that was most of an append's cost, and
 * appends were most of a run's statements). The statement is unchanged; a change to it is a new
 * migration that replaces the function.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create function flex_append(
      p_stream text, p_key text, p_expected int, p_count int, p_docs jsonb, p_outbox boolean, p_genesis text
    ) returns table (
      head int, key_stream text, key_positions bigint[], accepted boolean, claimed boolean,
      "position" bigint, recorded_at timestamptz, xid text
    ) language plpgsql as $fn$
    #variable_conflict use_column
    begin
      return query
      with recursive head as (
        select coalesce(last.version, 0)::int as version, coalesce(last.hash, p_genesis) as hash
        from (select) one
        left join (
          select version, hash from events where stream_id = p_stream order by version desc limit 1
        ) last on true
      ),
      prior as (
        select stream_id, positions from idempotency_keys where key = p_key
      ),
      accepted as (
        select version, hash from head
        where not exists (select from prior)
          and (p_expected is null or version = p_expected)
      ),
      allocated as (
        select (row_number() over (order by position))::int as ord, position
        from (
          select nextval('events_position_seq') as position
          from accepted, generate_series(1, p_count)
        ) fresh
      ),
      claimed as (
        insert into idempotency_keys (key, stream_id, positions)
        select p_key, p_stream, coalesce((select array_agg(position order by ord) from allocated), '{}')
        from accepted where p_key is not null
        on conflict (key) do nothing
        returning key
      ),
      placed as (
        select e.ord, a.position, h.version + a.ord as version, e.doc,
          date_trunc('milliseconds', coalesce((e.doc->>'recorded_at')::timestamptz, now())) as recorded_at
        from accepted h
        join allocated a on true
        join jsonb_array_elements(p_docs) with ordinality as e(doc, ord) on e.ord = a.ord
      ),
      chain (ord, hash) as (
        select 0::bigint, hash from accepted
        union all
        -- RFC 8785 of { content, position, prev, timestamp, version }: see chain.ts.
        select p.ord, encode(sha256(convert_to(concat(
          '{"content":"', p.doc->>'content', '","position":', p.position, ',"prev":"', c.hash,
          '","timestamp":"', to_char(p.recorded_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
          '","version":', p.version, '}'), 'UTF8')), 'hex')
        from chain c join placed p on p.ord = c.ord + 1
      ),
      inserted as (
        insert into events
          (position, id, stream_id, version, type, payload, metadata, recorded_at, prev_hash, hash)
        select p.position, (p.doc->>'id')::uuid, p_stream, p.version, p.doc->>'type',
          p.doc->'payload', p.doc->'metadata', p.recorded_at, before.hash, self.hash
        from placed p
        join chain self on self.ord = p.ord
        join chain before on before.ord = p.ord - 1
        where p_key is null or exists (select from claimed)
        returning position, version, recorded_at, transaction_id
      ),
      outboxed as (
        insert into outbox (position) select position from inserted where p_outbox
      )
      select h.version, p.stream_id, p.positions,
        exists (select from accepted), exists (select from claimed),
        i.position, i.recorded_at, i.transaction_id::text
      from head h
      left join prior p on true
      left join inserted i on true
      order by i.version;
    end
    $fn$`.execute(db);
}
