package realtime

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"
)

// MemoryState is a StateStore in this process's memory: the default of
// Config.State, for a single process (or several Handlers in one
// process). Safe for concurrent use.
type MemoryState struct {
	mu       sync.Mutex
	tokens   map[string]TokenRecord
	unusedBy map[string]map[string]time.Time // project -> hash -> expiry of its unused tokens
	sessions map[string]SessionRecord
}

var _ StateStore = (*MemoryState)(nil)

// NewMemoryState returns an empty MemoryState.
func NewMemoryState() *MemoryState {
	return &MemoryState{tokens: map[string]TokenRecord{}, unusedBy: map[string]map[string]time.Time{}, sessions: map[string]SessionRecord{}}
}

// AddToken implements StateStore.
func (m *MemoryState) AddToken(_ context.Context, t TokenRecord, now time.Time, max int) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.tokens[t.Hash]; ok {
		return fmt.Errorf("realtime: token %.8s...: %w", t.Hash, ErrStateExists)
	}
	unused := m.unusedBy[t.Project]
	if len(unused) >= max {
		// Count only those unexpired at now (the index keeps expired
		// ones until Purge).
		n := 0
		for _, exp := range unused {
			if exp.After(now) {
				n++
			}
		}
		if n >= max {
			return ErrTooManyTokens
		}
	}
	t.Session = ""
	t.Expires = t.Expires.UTC()
	m.tokens[t.Hash] = t
	if unused == nil {
		unused = map[string]time.Time{}
		m.unusedBy[t.Project] = unused
	}
	unused[t.Hash] = t.Expires
	return nil
}

// forgetUnused takes t off its project's index of unused tokens.
func (m *MemoryState) forgetUnused(t TokenRecord) {
	if u := m.unusedBy[t.Project]; u != nil {
		delete(u, t.Hash)
		if len(u) == 0 {
			delete(m.unusedBy, t.Project)
		}
	}
}

// Token implements StateStore.
func (m *MemoryState) Token(_ context.Context, hash string) (TokenRecord, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.tokens[hash]
	if !ok {
		return TokenRecord{}, fmt.Errorf("realtime: token: %w", ErrStateNotFound)
	}
	return t, nil
}

// CreateSession implements StateStore.
func (m *MemoryState) CreateSession(_ context.Context, rec SessionRecord) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.sessions[rec.ID]; ok {
		return fmt.Errorf("realtime: session %s: %w", rec.ID, ErrStateExists)
	}
	if rec.TokenHash != "" {
		t, ok := m.tokens[rec.TokenHash]
		if !ok || t.Session != "" {
			return fmt.Errorf("realtime: session %s: %w", rec.ID, ErrTokenUsed)
		}
		m.forgetUnused(t)
		t.Session = rec.ID
		m.tokens[rec.TokenHash] = t
	}
	rec.Version = 1
	m.sessions[rec.ID] = normRecord(rec)
	return nil
}

// GetSession implements StateStore.
func (m *MemoryState) GetSession(_ context.Context, id string) (SessionRecord, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	rec, ok := m.sessions[id]
	if !ok {
		return SessionRecord{}, fmt.Errorf("realtime: session %s: %w", id, ErrStateNotFound)
	}
	rec.Options.WordBoost = slices.Clone(rec.Options.WordBoost)
	return rec, nil
}

// UpdateSession implements StateStore.
func (m *MemoryState) UpdateSession(_ context.Context, rec SessionRecord) (SessionRecord, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	cur, ok := m.sessions[rec.ID]
	if !ok {
		return SessionRecord{}, fmt.Errorf("realtime: session %s: %w", rec.ID, ErrStateNotFound)
	}
	if cur.Version != rec.Version {
		return SessionRecord{}, fmt.Errorf("realtime: session %s is at version %d, not %d: %w", rec.ID, cur.Version, rec.Version, ErrStateConflict)
	}
	cur.State, cur.Owner, cur.Attached = rec.State, rec.Owner, rec.Attached
	cur.LeaseUntil, cur.DetachedAt = rec.LeaseUntil, rec.DetachedAt
	cur.AudioSamples, cur.SilenceThreshold, cur.Resumes = rec.AudioSamples, rec.SilenceThreshold, rec.Resumes
	cur.EndedAt, cur.PurgeAfter = rec.EndedAt, rec.PurgeAfter
	cur.Version++
	cur = normRecord(cur)
	m.sessions[rec.ID] = cur
	cur.Options.WordBoost = slices.Clone(cur.Options.WordBoost)
	return cur, nil
}

// Purge implements StateStore.
func (m *MemoryState) Purge(_ context.Context, now time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for id, rec := range m.sessions {
		if rec.PurgeAfter.Before(now) {
			delete(m.sessions, id)
		}
	}
	for h, t := range m.tokens {
		if t.Session == "" && t.Expires.Before(now) {
			delete(m.tokens, h)
			m.forgetUnused(t)
		} else if _, ok := m.sessions[t.Session]; t.Session != "" && !ok {
			delete(m.tokens, h)
		}
	}
	return nil
}

// unused counts the tokens of project that are unused and unexpired at
// now.
func (m *MemoryState) unused(project string, now time.Time) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, exp := range m.unusedBy[project] {
		if exp.After(now) {
			n++
		}
	}
	return n
}

// normRecord stores times in UTC and copies the word boost list, so the
// caller's slice is not shared.
func normRecord(r SessionRecord) SessionRecord {
	utc := func(t *time.Time) {
		if !t.IsZero() {
			*t = t.UTC()
		}
	}
	for _, t := range []*time.Time{&r.Started, &r.ExpiresAt, &r.LeaseUntil, &r.DetachedAt, &r.EndedAt, &r.PurgeAfter} {
		utc(t)
	}
	r.Options.WordBoost = slices.Clone(r.Options.WordBoost)
	return r
}
