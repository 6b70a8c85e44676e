import { Kysely, sql } from 'kysely';

/**
 * `flex_append_many` (2026122601_append_steps) set-based: where it ran flex_append item by item (each
 * item a handful of statements, each event two single-row INSERTs), it now takes the group in runs of
 * items that share no stream and no key (`flex_append_run`; usually the whole group is one run), and
 * does each run in a few statements for all its items at once: one read of the streams' heads and the
 * keys' records, one nextval per position, one INSERT of the keys, one of the events, one of their
 * outbox rows. Its items, its arguments and its rows are unchanged (append-statement.ts reads them).
 *
 * Each item is still accepted or refused on its own, exactly as flex_append would: a used key, or a
 * stale expected version, writes nothing for that item; otherwise it takes its positions, claims its
 * key (a key another writer claimed meanwhile: nothing written for the item, `claimed` false), and its
 * events are hashed onto its stream's head in order (chain.ts). Items of one run share no stream and
 * no key, so taking them together gives each the outcome it had after the ones before it; an item that
 * shares either with an earlier one of its run starts the next run, which sees what the runs before it
 * wrote. A race with another writer on a stream's next version, or a duplicate event id, still fails
 * the statement (events_stream_version_unique, events_id_unique), and the caller retries one by one.
 * Positions still ascend in item order, then event order.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // Items p_from .. p_to (1-based) of p_items, which share no stream and no key.
  await sql`
    create function flex_append_run(
      p_items jsonb, p_from int, p_to int, p_outbox boolean, p_genesis text
    ) returns table (
      item int, head int, key_stream text, key_positions bigint[], accepted boolean, claimed boolean,
      "position" bigint, recorded_at timestamptz, xid text
    ) language plpgsql as $fn$
    declare
      -- Per item of the run, in order.
      v_ord int[];
      v_stream text[];
      v_key text[];
      v_head int[];
      v_hash text[];
      v_key_stream text[];
      v_key_positions text[];
      v_accepted boolean[];
      v_count int[];
      v_first int[];
      v_claimed boolean[];
      v_total int := 0;
      v_positions bigint[];
      v_keyed boolean := false;
      v_taken text[];
      -- Per event written, in position order.
      v_e_item int[] := '{}';
      v_e_n int[] := '{}';
      v_e_version int[] := '{}';
      v_e_at timestamptz[] := '{}';
      v_e_prev text[] := '{}';
      v_e_hash text[] := '{}';
      v_e_position bigint[] := '{}';
      v_j int;
      v_at timestamptz;
      v_prev text;
      v_xid text;
      r record;
    begin
      select array_agg(x.ord::int order by x.ord), array_agg(x.v->>'s' order by x.ord),
        array_agg(x.v->>'k' order by x.ord), array_agg(coalesce(h.version, 0) order by x.ord),
        array_agg(coalesce(h.hash, p_genesis) order by x.ord), array_agg(k.stream_id order by x.ord),
        array_agg(k.positions::text order by x.ord),
        array_agg(k.stream_id is null
          and ((x.v->>'e') is null or coalesce(h.version, 0) = (x.v->>'e')::int) order by x.ord),
        array_agg(jsonb_array_length(x.v->'d') order by x.ord)
      into v_ord, v_stream, v_key, v_head, v_hash, v_key_stream, v_key_positions, v_accepted, v_count
      from jsonb_array_elements(p_items) with ordinality as x(v, ord)
      left join lateral (
        select e.version, e.hash from events e where e.stream_id = x.v->>'s' order by e.version desc limit 1
      ) h on true
      left join lateral (
        select i.stream_id, i.positions from idempotency_keys i where i.key = x.v->>'k' limit 1
      ) k on true
      where x.ord between p_from and p_to;
      -- Positions for the accepted items' events, in item order.
      v_first := array_fill(0, array[p_to - p_from + 1]);
      for j in 1 .. p_to - p_from + 1 loop
        if v_accepted[j] then
          v_first[j] := v_total + 1;
          v_total := v_total + v_count[j];
          v_keyed := v_keyed or v_key[j] is not null;
        end if;
      end loop;
      v_positions := array(select nextval('events_position_seq') from generate_series(1, v_total));
      v_claimed := array_fill(false, array[p_to - p_from + 1]);
      if v_keyed then
        -- Keys in their order: two runs claiming keys in different orders would deadlock.
        with taken as (
          insert into idempotency_keys (key, stream_id, positions)
          select u.key, u.stream, v_positions[u.first : u.first + u.count - 1]
          from unnest(v_key, v_stream, v_accepted, v_first, v_count) as u(key, stream, accepted, first, count)
          where u.accepted and u.key is not null
          order by u.key
          on conflict (key) do nothing
          returning key
        )
        select coalesce(array_agg(key), '{}') into v_taken from taken;
        v_claimed := array(
          select coalesce(u.key = any(v_taken), false)
          from unnest(v_key) with ordinality as u(key, n) order by u.n
        );
      end if;
      -- The accepted items whose key, if any, is theirs: their events, hashed in order (chain.ts).
      for r in
        select x.ord::int as ord, d.n::int as n, d.doc->>'content' as content, d.doc->>'recorded_at' as at
        from jsonb_array_elements(p_items) with ordinality as x(v, ord),
          jsonb_array_elements(x.v->'d') with ordinality as d(doc, n)
        where x.ord between p_from and p_to
        order by x.ord, d.n
      loop
        v_j := r.ord - p_from + 1;
        continue when not v_accepted[v_j] or (v_key[v_j] is not null and not v_claimed[v_j]);
        v_at := date_trunc('milliseconds', coalesce(r.at::timestamptz, now()));
        v_prev := v_hash[v_j];
        -- RFC 8785 of { content, position, prev, timestamp, version }: see chain.ts.
        v_hash[v_j] := encode(sha256(convert_to(concat(
          '{"content":"', r.content, '","position":', v_positions[v_first[v_j] + r.n - 1],
          ',"prev":"', v_prev,
          '","timestamp":"', to_char(v_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
          '","version":', v_head[v_j] + r.n, '}'), 'UTF8')), 'hex');
        v_e_item := v_e_item || r.ord;
        v_e_position := v_e_position || v_positions[v_first[v_j] + r.n - 1];
        v_e_n := v_e_n || r.n;
        v_e_version := v_e_version || (v_head[v_j] + r.n);
        v_e_at := v_e_at || v_at;
        v_e_prev := v_e_prev || v_prev;
        v_e_hash := v_e_hash || v_hash[v_j];
      end loop;
      if cardinality(v_e_item) > 0 then
        insert into events
          (position, id, stream_id, version, type, payload, metadata, recorded_at, prev_hash, hash)
        select u.position, (d.doc->>'id')::uuid, x.v->>'s', u.version, d.doc->>'type', d.doc->'payload',
          d.doc->'metadata', u.at, u.prev, u.hash
        from unnest(v_e_item, v_e_n, v_e_position, v_e_version, v_e_at, v_e_prev, v_e_hash)
          as u(item, n, position, version, at, prev, hash)
        join jsonb_array_elements(p_items) with ordinality as x(v, ord) on x.ord = u.item
        cross join lateral (select x.v->'d'->(u.n::int - 1) as doc) d
        order by u.position;
        if p_outbox then
          insert into outbox (position) select unnest(v_e_position);
        end if;
        v_xid := pg_current_xact_id()::text;
      end if;
      return query
      select i.ord, i.head, i.key_stream, i.key_positions::bigint[], i.accepted, i.claimed,
        e.position, e.at, case when e.position is null then null else v_xid end
      from unnest(v_ord, v_head, v_key_stream, v_key_positions, v_accepted, v_claimed)
        as i(ord, head, key_stream, key_positions, accepted, claimed)
      left join unnest(v_e_item, v_e_position, v_e_at) with ordinality as e(item, position, at, k)
        on e.item = i.ord
      order by i.ord, e.k;
    end
    $fn$`.execute(db);
  // Items as before: [{ "s": stream, "k": key or null, "e": expected version or null, "d": [docs] }].
  await sql`
    create or replace function flex_append_many(p_items jsonb, p_outbox boolean, p_genesis text)
    returns table (
      item int, head int, key_stream text, key_positions bigint[], accepted boolean, claimed boolean,
      "position" bigint, recorded_at timestamptz, xid text
    ) language plpgsql as $fn$
    declare
      v_stream text[];
      v_key text[];
      v_from int := 1;
      v_n int;
    begin
      select array_agg(x.v->>'s' order by x.ord), array_agg(x.v->>'k' order by x.ord)
      into v_stream, v_key
      from jsonb_array_elements(p_items) with ordinality as x(v, ord);
      v_n := coalesce(cardinality(v_stream), 0);
      for i in 2 .. v_n loop
        -- Sharing a stream or a key with an item before it in the run: it starts the next run.
        if v_stream[i] = any(v_stream[v_from : i - 1]) or v_key[i] = any(v_key[v_from : i - 1]) then
          return query select * from flex_append_run(p_items, v_from, i - 1, p_outbox, p_genesis);
          v_from := i;
        end if;
      end loop;
      if v_n > 0 then
        return query select * from flex_append_run(p_items, v_from, v_n, p_outbox, p_genesis);
      end if;
    end
    $fn$`.execute(db);
}
