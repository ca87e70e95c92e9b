package memory

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
)

// LeMURStore keeps LeMUR answers (driver.LeMURStore) in this
// process's memory: they are gone when it exits, and other processes do
// not see them. The SQL stores (storage/sqlite, storage/postgres) keep
// them for every process of a deployment. The zero value is not usable;
// call NewLeMURStore.
type LeMURStore struct {
	mu   sync.Mutex
	recs map[string]*driver.LeMURRecord // by RequestID
}

var _ driver.LeMURStore = (*LeMURStore)(nil)

// NewLeMURStore returns an empty LeMURStore.
func NewLeMURStore() *LeMURStore {
	return &LeMURStore{recs: map[string]*driver.LeMURRecord{}}
}

func cloneLeMUR(r *driver.LeMURRecord) *driver.LeMURRecord {
	c := *r
	c.Data = append([]byte(nil), r.Data...)
	return &c
}

// PutLeMUR implements driver.LeMURStore.
func (s *LeMURStore) PutLeMUR(ctx context.Context, r *driver.LeMURRecord) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.recs[r.RequestID]; ok {
		return fmt.Errorf("memory: LeMUR request %s: %w", r.RequestID, transcribe.ErrExists)
	}
	s.recs[r.RequestID] = cloneLeMUR(r)
	return nil
}

// GetLeMUR implements driver.LeMURStore.
func (s *LeMURStore) GetLeMUR(ctx context.Context, projectID, requestID string) (*driver.LeMURRecord, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.recs[requestID]
	if !ok || r.ProjectID != projectID {
		return nil, fmt.Errorf("memory: LeMUR request %s: %w", requestID, transcribe.ErrNotFound)
	}
	return cloneLeMUR(r), nil
}

// DeleteLeMUR implements driver.LeMURStore.
func (s *LeMURStore) DeleteLeMUR(ctx context.Context, projectID, requestID string) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.recs[requestID]
	if !ok || r.ProjectID != projectID {
		return false, nil
	}
	delete(s.recs, requestID)
	return true, nil
}

// SweepLeMUR implements driver.LeMURStore.
func (s *LeMURStore) SweepLeMUR(ctx context.Context, before time.Time) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for id, r := range s.recs {
		if r.Created.Before(before) {
			delete(s.recs, id)
			n++
		}
	}
	return n, nil
}
