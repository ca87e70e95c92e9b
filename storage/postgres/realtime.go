package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/earshot-dev/earshot/realtime"
)

// RealtimeState is a realtime.StateStore in the Store's schema (tables
// realtime_tokens and realtime_sessions): the temporary tokens and
// session records that the realtime Handlers of every process serving the
// region share. It uses the Store's connection pool and is closed with
// it. Safe for concurrent use by several goroutines and processes.
type RealtimeState struct {
	s *Store
}

var _ realtime.StateStore = (*RealtimeState)(nil)

// Realtime returns the store's realtime.StateStore.
func (s *Store) Realtime() *RealtimeState { return &RealtimeState{s: s} }

// sessionOptions is how the options column holds realtime.SessionOptions
// (the project is the project_id column).
type sessionOptions struct {
	SampleRate                    int      `json:"sample_rate"`
	Encoding                      string   `json:"encoding"`
	WordBoost                     []string `json:"word_boost,omitempty"`
	DisablePartialTranscripts     bool     `json:"disable_partial_transcripts,omitempty"`
	EnableExtraSessionInformation bool     `json:"enable_extra_session_information,omitempty"`
}

// tokenLockKey is the advisory lock that serializes AddToken per project
// (the count and the insert are one step).
func tokenLockKey(project string) int64 {
	h := fnv.New64a()
	h.Write([]byte("earshot/storage/postgres realtime token " + project))
	return int64(h.Sum64())
}

// AddToken implements realtime.StateStore: the count of the project's
// unused tokens and the insert run in one transaction under a
// transaction-scoped advisory lock per project, so concurrent adds never
// overshoot max.
func (r *RealtimeState) AddToken(ctx context.Context, t realtime.TokenRecord, now time.Time, max int) error {
	for _, f := range [][2]string{{"token hash", t.Hash}, {"token project", t.Project}} {
		if err := checkText(f[0], f[1]); err != nil {
			return err
		}
	}
	if t.Hash == "" {
		return errors.New("postgres: AddToken: token hash is empty")
	}
	exp, err := stamp("token Expires", t.Expires)
	if err != nil {
		return err
	}
	if r.s.closed.Load() {
		return errClosed("AddToken")
	}
	tx, err := r.s.pool.Begin(ctx)
	if err != nil {
		return r.s.fail("adding a realtime token", err)
	}
	defer tx.Rollback(context.Background())
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, tokenLockKey(t.Project)); err != nil {
		return r.s.fail("adding a realtime token", err)
	}
	var n int
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM realtime_tokens WHERE project_id = $1 AND session_id = '' AND expires > $2`,
		t.Project, bound(now)).Scan(&n); err != nil {
		return r.s.fail("counting realtime tokens", err)
	}
	if n >= max {
		return fmt.Errorf("postgres: project %s holds %d unused tokens: %w", t.Project, n, realtime.ErrTooManyTokens)
	}
	tag, err := tx.Exec(ctx, `INSERT INTO realtime_tokens (hash, project_id, expires) VALUES ($1, $2, $3) ON CONFLICT (hash) DO NOTHING`,
		t.Hash, t.Project, exp)
	if err != nil {
		return r.s.fail("adding a realtime token", err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("postgres: realtime token %.8s...: %w", t.Hash, realtime.ErrStateExists)
	}
	if err := tx.Commit(ctx); err != nil {
		return r.s.fail("adding a realtime token", err)
	}
	return nil
}

// Token implements realtime.StateStore.
func (r *RealtimeState) Token(ctx context.Context, hash string) (realtime.TokenRecord, error) {
	if !storable(hash) {
		return realtime.TokenRecord{}, fmt.Errorf("postgres: realtime token: %w", realtime.ErrStateNotFound)
	}
	if r.s.closed.Load() {
		return realtime.TokenRecord{}, errClosed("Token")
	}
	var (
		t   realtime.TokenRecord
		exp pgtype.Timestamptz
	)
	err := r.s.pool.QueryRow(ctx, `SELECT hash, project_id, expires, session_id FROM realtime_tokens WHERE hash = $1`, hash).
		Scan(&t.Hash, &t.Project, &exp, &t.Session)
	if errors.Is(err, pgx.ErrNoRows) {
		return realtime.TokenRecord{}, fmt.Errorf("postgres: realtime token: %w", realtime.ErrStateNotFound)
	}
	if err != nil {
		return realtime.TokenRecord{}, r.s.fail("reading a realtime token", err)
	}
	t.Expires = unstamp(exp)
	return t, nil
}

const sessionCols = `id, project_id, token_hash, options, started, expires_at, state, owner, attached, lease_until,
	detached_at, audio_samples, silence_threshold_us, resumes, ended_at, purge_after, version`

// sessionRow is a SessionRecord encoded for the table.
type sessionRow struct {
	opts                                            []byte
	started, expires, lease, detached, ended, purge pgtype.Timestamptz
}

func encodeSession(op string, rec realtime.SessionRecord) (sessionRow, error) {
	var row sessionRow
	if rec.ID == "" {
		return row, fmt.Errorf("postgres: %s: session id is empty", op)
	}
	for _, f := range [][2]string{{"session ID", rec.ID}, {"session Project", rec.Project}, {"session TokenHash", rec.TokenHash},
		{"session State", string(rec.State)}, {"session Owner", rec.Owner}, {"session Encoding", string(rec.Options.Encoding)}} {
		if err := checkText(f[0], f[1]); err != nil {
			return row, err
		}
	}
	o := rec.Options
	b, err := json.Marshal(sessionOptions{SampleRate: o.SampleRate, Encoding: string(o.Encoding), WordBoost: o.WordBoost,
		DisablePartialTranscripts: o.DisablePartialTranscripts, EnableExtraSessionInformation: o.EnableExtraSessionInformation})
	if err != nil {
		return row, fmt.Errorf("postgres: %s: session options: %w", op, err)
	}
	row.opts = b
	for _, f := range []struct {
		name string
		t    time.Time
		dst  *pgtype.Timestamptz
	}{
		{"Started", rec.Started, &row.started}, {"ExpiresAt", rec.ExpiresAt, &row.expires}, {"LeaseUntil", rec.LeaseUntil, &row.lease},
		{"DetachedAt", rec.DetachedAt, &row.detached}, {"EndedAt", rec.EndedAt, &row.ended}, {"PurgeAfter", rec.PurgeAfter, &row.purge},
	} {
		if *f.dst, err = stamp("session "+f.name, f.t); err != nil {
			return row, err
		}
	}
	return row, nil
}

func readSession(row pgx.Row) (realtime.SessionRecord, error) {
	var (
		rec                                             realtime.SessionRecord
		opts                                            []byte
		state                                           string
		threshold                                       int64
		started, expires, lease, detached, ended, purge pgtype.Timestamptz
	)
	if err := row.Scan(&rec.ID, &rec.Project, &rec.TokenHash, &opts, &started, &expires, &state, &rec.Owner, &rec.Attached, &lease,
		&detached, &rec.AudioSamples, &threshold, &rec.Resumes, &ended, &purge, &rec.Version); err != nil {
		return rec, err
	}
	var o sessionOptions
	if err := json.Unmarshal(opts, &o); err != nil {
		return rec, fmt.Errorf("postgres: session %s: options column: %w", rec.ID, err)
	}
	rec.Options = realtime.SessionOptions{ProjectID: rec.Project, SampleRate: o.SampleRate, Encoding: realtime.Encoding(o.Encoding),
		WordBoost: o.WordBoost, DisablePartialTranscripts: o.DisablePartialTranscripts, EnableExtraSessionInformation: o.EnableExtraSessionInformation}
	rec.State = realtime.State(state)
	rec.SilenceThreshold = time.Duration(threshold) * time.Microsecond
	rec.Started, rec.ExpiresAt, rec.LeaseUntil = unstamp(started), unstamp(expires), unstamp(lease)
	rec.DetachedAt, rec.EndedAt, rec.PurgeAfter = unstamp(detached), unstamp(ended), unstamp(purge)
	return rec, nil
}

// createSessionSQL inserts the session and, when it names a token, marks
// the token used in the same statement: the insert happens only if the
// token was unused. A session id that exists fails the whole statement
// (unique violation), so the token stays unused.
const createSessionSQL = `WITH tok AS (
		UPDATE realtime_tokens SET session_id = $1 WHERE $3 <> '' AND hash = $3 AND session_id = '' RETURNING 1)
	INSERT INTO realtime_sessions (` + sessionCols + `)
	SELECT $1::text, $2::text, $3::text, $4::jsonb, $5::timestamptz, $6::timestamptz, $7::text, $8::text, $9::boolean,
		$10::timestamptz, $11::timestamptz, $12::bigint, $13::bigint, $14::integer, $15::timestamptz, $16::timestamptz, 1
	WHERE $3 = '' OR EXISTS (SELECT 1 FROM tok)`

// CreateSession implements realtime.StateStore in one statement.
func (r *RealtimeState) CreateSession(ctx context.Context, rec realtime.SessionRecord) error {
	row, err := encodeSession("CreateSession", rec)
	if err != nil {
		return err
	}
	if r.s.closed.Load() {
		return errClosed("CreateSession")
	}
	tag, err := r.s.pool.Exec(ctx, createSessionSQL, rec.ID, rec.Project, rec.TokenHash, row.opts, row.started, row.expires,
		string(rec.State), rec.Owner, rec.Attached, row.lease, row.detached, rec.AudioSamples, rec.SilenceThreshold.Microseconds(),
		rec.Resumes, row.ended, row.purge)
	if pe := (*pgconn.PgError)(nil); errors.As(err, &pe) && pe.Code == "23505" {
		return fmt.Errorf("postgres: realtime session %s: %w", rec.ID, realtime.ErrStateExists)
	}
	if err != nil {
		return r.s.fail("creating realtime session "+rec.ID, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("postgres: realtime session %s: %w", rec.ID, realtime.ErrTokenUsed)
	}
	return nil
}

// GetSession implements realtime.StateStore.
func (r *RealtimeState) GetSession(ctx context.Context, id string) (realtime.SessionRecord, error) {
	if !storable(id) {
		return realtime.SessionRecord{}, fmt.Errorf("postgres: realtime session %q: %w", id, realtime.ErrStateNotFound)
	}
	if r.s.closed.Load() {
		return realtime.SessionRecord{}, errClosed("GetSession")
	}
	rec, err := readSession(r.s.pool.QueryRow(ctx, `SELECT `+sessionCols+` FROM realtime_sessions WHERE id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return rec, fmt.Errorf("postgres: realtime session %s: %w", id, realtime.ErrStateNotFound)
	}
	if err != nil {
		return rec, r.s.fail("reading realtime session "+id, err)
	}
	return rec, nil
}

// updateSessionSQL is the compare-and-swap: the UPDATE matches only the
// expected version.
const updateSessionSQL = `UPDATE realtime_sessions SET state = $3, owner = $4, attached = $5, lease_until = $6, detached_at = $7,
		audio_samples = $8, silence_threshold_us = $9, resumes = $10, ended_at = $11, purge_after = $12, version = version + 1
	WHERE id = $1 AND version = $2
	RETURNING ` + sessionCols

// UpdateSession implements realtime.StateStore: one UPDATE; only a
// refused one costs a second statement, which tells a conflict from an
// absent id.
func (r *RealtimeState) UpdateSession(ctx context.Context, rec realtime.SessionRecord) (realtime.SessionRecord, error) {
	if rec.ID != "" && !storable(rec.ID) {
		return realtime.SessionRecord{}, fmt.Errorf("postgres: realtime session %q: %w", rec.ID, realtime.ErrStateNotFound)
	}
	row, err := encodeSession("UpdateSession", rec)
	if err != nil {
		return realtime.SessionRecord{}, err
	}
	if r.s.closed.Load() {
		return realtime.SessionRecord{}, errClosed("UpdateSession")
	}
	out, err := readSession(r.s.pool.QueryRow(ctx, updateSessionSQL, rec.ID, rec.Version, string(rec.State), rec.Owner, rec.Attached,
		row.lease, row.detached, rec.AudioSamples, rec.SilenceThreshold.Microseconds(), rec.Resumes, row.ended, row.purge))
	if err == nil {
		return out, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return out, r.s.fail("updating realtime session "+rec.ID, err)
	}
	var cur int64
	err = r.s.pool.QueryRow(ctx, `SELECT version FROM realtime_sessions WHERE id = $1`, rec.ID).Scan(&cur)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return out, fmt.Errorf("postgres: realtime session %s: %w", rec.ID, realtime.ErrStateNotFound)
	case err != nil:
		return out, r.s.fail("updating realtime session "+rec.ID, err)
	}
	return out, fmt.Errorf("postgres: realtime session %s is at version %d, not %d: %w", rec.ID, cur, rec.Version, realtime.ErrStateConflict)
}

// purgeTokensSQL deletes unused tokens past their expiry and used tokens
// whose session is gone.
const purgeTokensSQL = `DELETE FROM realtime_tokens t
	WHERE (t.session_id = '' AND t.expires < $1)
	   OR (t.session_id <> '' AND NOT EXISTS (SELECT 1 FROM realtime_sessions s WHERE s.id = t.session_id))`

// Purge implements realtime.StateStore: sessions past PurgeAfter, then
// the tokens that are expired and unused or whose session is gone, in one
// transaction.
func (r *RealtimeState) Purge(ctx context.Context, now time.Time) error {
	if r.s.closed.Load() {
		return errClosed("Purge")
	}
	tx, err := r.s.pool.Begin(ctx)
	if err != nil {
		return r.s.fail("purging realtime state", err)
	}
	defer tx.Rollback(context.Background())
	if _, err := tx.Exec(ctx, `DELETE FROM realtime_sessions WHERE purge_after < $1`, bound(now)); err != nil {
		return r.s.fail("purging realtime sessions", err)
	}
	if _, err := tx.Exec(ctx, purgeTokensSQL, bound(now)); err != nil {
		return r.s.fail("purging realtime tokens", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return r.s.fail("purging realtime state", err)
	}
	return nil
}
