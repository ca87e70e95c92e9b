// Package realtimetest holds the conformance suite of realtime.StateStore,
// which every implementation runs from its tests (realtime.MemoryState,
// storage/postgres).
package realtimetest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/realtime"
)

// base is the suite's reference time: microsecond precision in a zone
// other than UTC (stores return UTC).
var base = time.Date(2026, 3, 14, 15, 9, 26, 535897000, time.FixedZone("UTC+1", 3600))

// RunStateStoreTests checks every clause of the realtime.StateStore
// contract. newStore must return a fresh, empty store each time; the
// suite does not close it.
func RunStateStoreTests(t *testing.T, newStore func(t *testing.T) realtime.StateStore) {
	t.Helper()
	tests := []struct {
		name string
		fn   func(t *testing.T, s realtime.StateStore)
	}{
		{"Tokens", testTokens},
		{"TokenCap", testTokenCap},
		{"Sessions", testSessions},
		{"SessionWithToken", testSessionWithToken},
		{"Update", testUpdate},
		{"ConcurrentClaims", testConcurrentClaims},
		{"Purge", testPurge},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newStore(t)
			if s == nil {
				t.Fatal("newStore returned nil")
			}
			tc.fn(t, s)
		})
	}
}

func hash(tok string) string { return realtime.TokenHash(tok) }

func testTokens(t *testing.T, s realtime.StateStore) {
	ctx := context.Background()
	if _, err := s.Token(ctx, hash("nope")); !errors.Is(err, realtime.ErrStateNotFound) {
		t.Fatalf("Token of an unknown hash: %v, want ErrStateNotFound", err)
	}
	tok := realtime.TokenRecord{Hash: hash("a"), Project: "p1", Expires: base.Add(time.Hour)}
	if err := s.AddToken(ctx, tok, base, 10); err != nil {
		t.Fatal(err)
	}
	got, err := s.Token(ctx, tok.Hash)
	if err != nil {
		t.Fatal(err)
	}
	if got.Hash != tok.Hash || got.Project != "p1" || got.Session != "" || !got.Expires.Equal(tok.Expires) || got.Expires.Location() != time.UTC {
		t.Fatalf("Token = %+v, want %+v in UTC", got, tok)
	}
	if err := s.AddToken(ctx, tok, base, 10); !errors.Is(err, realtime.ErrStateExists) {
		t.Fatalf("AddToken of an existing hash: %v, want ErrStateExists", err)
	}
}

func testTokenCap(t *testing.T, s realtime.StateStore) {
	ctx := context.Background()
	add := func(name, project string, expires time.Time) error {
		return s.AddToken(ctx, realtime.TokenRecord{Hash: hash(name), Project: project, Expires: expires}, base, 3)
	}
	// An expired token does not count.
	if err := add("old", "p1", base.Add(-time.Second)); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if err := add(fmt.Sprint("t", i), "p1", base.Add(time.Minute)); err != nil {
			t.Fatalf("token %d: %v", i, err)
		}
	}
	if err := add("t3", "p1", base.Add(time.Minute)); !errors.Is(err, realtime.ErrTooManyTokens) {
		t.Fatalf("fourth unused token: %v, want ErrTooManyTokens", err)
	}
	if _, err := s.Token(ctx, hash("t3")); !errors.Is(err, realtime.ErrStateNotFound) {
		t.Fatalf("a refused token was stored: %v", err)
	}
	// Other projects have their own count.
	if err := add("q0", "p2", base.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	// A used token no longer counts.
	rec := session("s1", "p1")
	rec.TokenHash = hash("t0")
	if err := s.CreateSession(ctx, rec); err != nil {
		t.Fatal(err)
	}
	if err := add("t3", "p1", base.Add(time.Minute)); err != nil {
		t.Fatalf("after one token was used: %v", err)
	}
	// Nor does one that expires by the time given.
	if err := s.AddToken(ctx, realtime.TokenRecord{Hash: hash("t4"), Project: "p1", Expires: base.Add(2 * time.Minute)}, base.Add(time.Minute), 3); err != nil {
		t.Fatalf("after the others expired: %v", err)
	}
}

// session returns a complete record with distinct values in every field.
func session(id, project string) realtime.SessionRecord {
	return realtime.SessionRecord{
		ID: id, Project: project,
		Options: realtime.SessionOptions{
			ProjectID: project, SampleRate: 8000, Encoding: realtime.EncodingPCMMulaw,
			WordBoost: []string{"earshot", "new york"}, DisablePartialTranscripts: true, EnableExtraSessionInformation: true,
		},
		Started: base, ExpiresAt: base.Add(time.Hour),
		State: realtime.StateBegins, Owner: "proc-1", Attached: true, LeaseUntil: base.Add(10 * time.Second),
		SilenceThreshold: 700 * time.Millisecond, PurgeAfter: base.Add(time.Hour + 10*time.Minute),
	}
}

// same compares records; times by instant.
func same(t *testing.T, what string, got, want realtime.SessionRecord) {
	t.Helper()
	for _, tm := range []struct {
		name string
		g, w time.Time
	}{
		{"Started", got.Started, want.Started}, {"ExpiresAt", got.ExpiresAt, want.ExpiresAt},
		{"LeaseUntil", got.LeaseUntil, want.LeaseUntil}, {"DetachedAt", got.DetachedAt, want.DetachedAt},
		{"EndedAt", got.EndedAt, want.EndedAt}, {"PurgeAfter", got.PurgeAfter, want.PurgeAfter},
	} {
		if !tm.g.Equal(tm.w) || tm.g.IsZero() != tm.w.IsZero() {
			t.Errorf("%s: %s = %v, want %v", what, tm.name, tm.g, tm.w)
		}
		if !tm.g.IsZero() && tm.g.Location() != time.UTC {
			t.Errorf("%s: %s is in %v, want UTC", what, tm.name, tm.g.Location())
		}
	}
	g, w := got, want
	g.Started, g.ExpiresAt, g.LeaseUntil, g.DetachedAt, g.EndedAt, g.PurgeAfter = time.Time{}, time.Time{}, time.Time{}, time.Time{}, time.Time{}, time.Time{}
	w.Started, w.ExpiresAt, w.LeaseUntil, w.DetachedAt, w.EndedAt, w.PurgeAfter = time.Time{}, time.Time{}, time.Time{}, time.Time{}, time.Time{}, time.Time{}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s:\n got %+v\nwant %+v", what, g, w)
	}
}

func testSessions(t *testing.T, s realtime.StateStore) {
	ctx := context.Background()
	if _, err := s.GetSession(ctx, "nope"); !errors.Is(err, realtime.ErrStateNotFound) {
		t.Fatalf("GetSession of an unknown id: %v, want ErrStateNotFound", err)
	}
	rec := session("s1", "p1")
	if err := s.CreateSession(ctx, rec); err != nil {
		t.Fatal(err)
	}
	got, err := s.GetSession(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	want := rec
	want.Version = 1
	same(t, "created", got, want)
	// The store keeps its own copy.
	got.Options.WordBoost[0] = "changed"
	rec.Options.WordBoost[1] = "changed"
	if again, _ := s.GetSession(ctx, "s1"); again.Options.WordBoost[0] != "earshot" || again.Options.WordBoost[1] != "new york" {
		t.Fatalf("word boost shared with the caller: %v", again.Options.WordBoost)
	}
	if err := s.CreateSession(ctx, session("s1", "p2")); !errors.Is(err, realtime.ErrStateExists) {
		t.Fatalf("CreateSession of an existing id: %v, want ErrStateExists", err)
	}
	// Zero times and an empty word boost list round-trip.
	bare := realtime.SessionRecord{ID: "s2", Project: "p1", Options: realtime.SessionOptions{ProjectID: "p1", SampleRate: 16000, Encoding: realtime.EncodingPCMS16LE},
		Started: base, ExpiresAt: base.Add(time.Minute), State: realtime.StateBegins, PurgeAfter: base.Add(time.Hour)}
	if err := s.CreateSession(ctx, bare); err != nil {
		t.Fatal(err)
	}
	got, err = s.GetSession(ctx, "s2")
	if err != nil {
		t.Fatal(err)
	}
	bare.Version = 1
	if len(got.Options.WordBoost) == 0 {
		got.Options.WordBoost = nil
	}
	same(t, "bare", got, bare)
}

func testSessionWithToken(t *testing.T, s realtime.StateStore) {
	ctx := context.Background()
	if err := s.AddToken(ctx, realtime.TokenRecord{Hash: hash("a"), Project: "p1", Expires: base.Add(time.Hour)}, base, 10); err != nil {
		t.Fatal(err)
	}
	// A session whose id exists fails without using the token.
	if err := s.CreateSession(ctx, session("taken", "p1")); err != nil {
		t.Fatal(err)
	}
	dup := session("taken", "p1")
	dup.TokenHash = hash("a")
	if err := s.CreateSession(ctx, dup); !errors.Is(err, realtime.ErrStateExists) {
		t.Fatalf("CreateSession of an existing id with a token: %v, want ErrStateExists", err)
	}
	if tok, _ := s.Token(ctx, hash("a")); tok.Session != "" {
		t.Fatalf("the token was used by a failed CreateSession: %+v", tok)
	}
	rec := session("s1", "p1")
	rec.TokenHash = hash("a")
	if err := s.CreateSession(ctx, rec); err != nil {
		t.Fatal(err)
	}
	if tok, err := s.Token(ctx, hash("a")); err != nil || tok.Session != "s1" {
		t.Fatalf("token after use: %+v, %v; want Session s1", tok, err)
	}
	got, err := s.GetSession(ctx, "s1")
	if err != nil || got.TokenHash != hash("a") {
		t.Fatalf("session: %+v, %v", got, err)
	}
	again := session("s2", "p1")
	again.TokenHash = hash("a")
	if err := s.CreateSession(ctx, again); !errors.Is(err, realtime.ErrTokenUsed) {
		t.Fatalf("second session with one token: %v, want ErrTokenUsed", err)
	}
	unknown := session("s3", "p1")
	unknown.TokenHash = hash("unknown")
	if err := s.CreateSession(ctx, unknown); !errors.Is(err, realtime.ErrTokenUsed) {
		t.Fatalf("session with an unknown token: %v, want ErrTokenUsed", err)
	}
	for _, id := range []string{"s2", "s3"} {
		if _, err := s.GetSession(ctx, id); !errors.Is(err, realtime.ErrStateNotFound) {
			t.Fatalf("refused session %s was stored: %v", id, err)
		}
	}
}

func testUpdate(t *testing.T, s realtime.StateStore) {
	ctx := context.Background()
	rec := session("s1", "p1")
	rec.TokenHash = ""
	if err := s.CreateSession(ctx, rec); err != nil {
		t.Fatal(err)
	}
	if _, err := s.UpdateSession(ctx, session("nope", "p1")); !errors.Is(err, realtime.ErrStateNotFound) {
		t.Fatalf("UpdateSession of an unknown id: %v, want ErrStateNotFound", err)
	}
	next := rec
	next.Version = 1
	next.State, next.Owner, next.Attached = realtime.StateStreaming, "proc-2", false
	next.LeaseUntil, next.DetachedAt = base.Add(20*time.Second), base.Add(15*time.Second)
	next.AudioSamples, next.SilenceThreshold, next.Resumes = 123456789012, 1500*time.Millisecond, 3
	next.EndedAt, next.PurgeAfter = base.Add(30*time.Second), base.Add(40*time.Minute)
	// Fields that never change are not written.
	changed := next
	changed.Project, changed.TokenHash = "p2", "x"
	changed.Options.SampleRate = 44100
	changed.Started, changed.ExpiresAt = base.Add(time.Minute), base.Add(2*time.Hour)
	out, err := s.UpdateSession(ctx, changed)
	if err != nil {
		t.Fatal(err)
	}
	want := next
	want.Version = 2
	same(t, "UpdateSession's result", out, want)
	got, err := s.GetSession(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	same(t, "after UpdateSession", got, want)
	// A stale version is refused and changes nothing.
	stale := next
	stale.Owner = "proc-3"
	if _, err := s.UpdateSession(ctx, stale); !errors.Is(err, realtime.ErrStateConflict) {
		t.Fatalf("UpdateSession with a stale version: %v, want ErrStateConflict", err)
	}
	if got, _ := s.GetSession(ctx, "s1"); got.Owner != "proc-2" || got.Version != 2 {
		t.Fatalf("after a refused update: %+v", got)
	}
	// Times back to zero.
	zero := got
	zero.LeaseUntil, zero.DetachedAt, zero.EndedAt = time.Time{}, time.Time{}, time.Time{}
	out, err = s.UpdateSession(ctx, zero)
	if err != nil {
		t.Fatal(err)
	}
	zero.Version = 3
	same(t, "zero times", out, zero)
}

func testConcurrentClaims(t *testing.T, s realtime.StateStore) {
	ctx := context.Background()
	if err := s.CreateSession(ctx, session("s1", "p1")); err != nil {
		t.Fatal(err)
	}
	for round := 0; round < 5; round++ {
		cur, err := s.GetSession(ctx, "s1")
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		var won []string
		for i := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				next := cur
				next.Owner = fmt.Sprint("proc-", i)
				next.Resumes++
				_, err := s.UpdateSession(ctx, next)
				switch {
				case err == nil:
					mu.Lock()
					won = append(won, next.Owner)
					mu.Unlock()
				case !errors.Is(err, realtime.ErrStateConflict):
					t.Errorf("claim: %v", err)
				}
			}()
		}
		wg.Wait()
		got, _ := s.GetSession(ctx, "s1")
		if len(won) != 1 || got.Owner != won[0] || got.Version != cur.Version+1 || got.Resumes != cur.Resumes+1 {
			t.Fatalf("round %d: winners %v, record %+v", round, won, got)
		}
	}
}

func testPurge(t *testing.T, s realtime.StateStore) {
	ctx := context.Background()
	now := base.Add(time.Hour)
	for _, tok := range []realtime.TokenRecord{
		{Hash: hash("expired"), Project: "p1", Expires: now.Add(-time.Second)},
		{Hash: hash("live"), Project: "p1", Expires: now.Add(time.Second)},
		{Hash: hash("used-gone"), Project: "p1", Expires: now.Add(time.Hour)},
		{Hash: hash("used-kept"), Project: "p1", Expires: now.Add(-time.Hour)},
	} {
		if err := s.AddToken(ctx, tok, base, 10); err != nil {
			t.Fatal(err)
		}
	}
	gone := session("gone", "p1")
	gone.TokenHash, gone.PurgeAfter = hash("used-gone"), now.Add(-time.Microsecond)
	kept := session("kept", "p1")
	kept.TokenHash, kept.PurgeAfter = hash("used-kept"), now
	for _, rec := range []realtime.SessionRecord{gone, kept} {
		if err := s.CreateSession(ctx, rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Purge(ctx, now); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetSession(ctx, "gone"); !errors.Is(err, realtime.ErrStateNotFound) {
		t.Errorf("session past PurgeAfter kept: %v", err)
	}
	if _, err := s.GetSession(ctx, "kept"); err != nil {
		t.Errorf("session at PurgeAfter purged: %v", err)
	}
	for name, wantKept := range map[string]bool{"expired": false, "live": true, "used-gone": false, "used-kept": true} {
		_, err := s.Token(ctx, hash(name))
		if kept := err == nil; kept != wantKept {
			t.Errorf("token %s: kept %v, want %v (%v)", name, kept, wantKept, err)
		}
	}
}
