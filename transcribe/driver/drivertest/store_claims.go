package drivertest

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
)

func mustClaim(t *testing.T, s driver.Store, owner string, now time.Time, lease time.Duration) *driver.Record {
	t.Helper()
	r, err := s.ClaimJob(t.Context(), driver.Claim{Owner: owner, Now: now, Lease: lease})
	if err != nil {
		t.Fatalf("ClaimJob(%s, %v): %v", owner, now, err)
	}
	if r == nil {
		t.Fatalf("ClaimJob returned nil, nil")
	}
	return r
}

func wantNoJob(t *testing.T, s driver.Store, owner string, now time.Time) {
	t.Helper()
	r, err := s.ClaimJob(t.Context(), driver.Claim{Owner: owner, Now: now, Lease: time.Minute})
	if !errors.Is(err, transcribe.ErrNoJob) {
		id := ""
		if r != nil {
			id = r.ID
		}
		t.Fatalf("ClaimJob(%s, %v) = %q, %v; want ErrNoJob", owner, now, id, err)
	}
}

func testClaimJobOrder(t *testing.T, s driver.Store) {
	wantNoJob(t, s, "w", base)
	// Created times disagree with creation order: "oldest" is the lowest Seq.
	created := []*driver.Record{rec("j1", "p1", 5), rec("j2", "p2", 3), rec("j3", "p1", 4)}
	mustCreate(t, s, created...)
	now := base.Add(time.Hour)
	for _, c := range created {
		id := c.ID
		got := mustClaim(t, s, "w", now, 30*time.Second)
		want := *c
		want.Status, want.LeaseOwner, want.LeaseUntil, want.Claims = transcribe.StatusProcessing, "w", now.Add(30*time.Second), 1
		if got.ID != id {
			t.Fatalf("ClaimJob returned %s, want %s (oldest first)", got.ID, id)
		}
		if d := diffRecord(got, &want); d != "" {
			t.Errorf("claimed record: %s", d)
		}
		if d := diffRecord(mustGet(t, s, id), got); d != "" {
			t.Errorf("Get after ClaimJob differs from the claimed record: %s", d)
		}
	}
	wantNoJob(t, s, "w", now)
}

func testClaimJobSkips(t *testing.T, s driver.Store) {
	mk := func(id string, st transcribe.Status, deleted bool, owner string, until time.Time) {
		r := rec(id, "p", 0)
		r.Status, r.Deleted, r.LeaseOwner, r.LeaseUntil = st, deleted, owner, until
		mustCreate(t, s, r)
	}
	now := base.Add(time.Hour)
	mk("completed", transcribe.StatusCompleted, false, "w0", now.Add(-time.Hour))
	mk("error", transcribe.StatusError, false, "", time.Time{})
	mk("deleted-queued", transcribe.StatusQueued, true, "", time.Time{})
	mk("deleted-expired", transcribe.StatusProcessing, true, "w0", now.Add(-time.Hour))
	mk("live", transcribe.StatusProcessing, false, "w0", now.Add(time.Minute))
	mk("until-now", transcribe.StatusProcessing, false, "w0", now) // LeaseUntil not before now
	wantNoJob(t, s, "w1", now)
	for _, id := range []string{"completed", "error", "deleted-queued", "deleted-expired", "live", "until-now"} {
		if r := mustGet(t, s, id); r.LeaseOwner == "w1" {
			t.Errorf("failed ClaimJob leased %s to w1", id)
		}
	}
	// A millisecond later until-now has expired.
	if got := mustClaim(t, s, "w1", now.Add(time.Millisecond), time.Minute); got.ID != "until-now" {
		t.Errorf("ClaimJob after the lease ran out returned %s, want until-now", got.ID)
	}
	mk("queued", transcribe.StatusQueued, false, "", time.Time{})
	if got := mustClaim(t, s, "w1", now, time.Minute); got.ID != "queued" {
		t.Errorf("ClaimJob returned %s, want queued", got.ID)
	}
	wantNoJob(t, s, "w1", now)
}

func testClaimJobRequeued(t *testing.T, s driver.Store) {
	mustCreate(t, s, rec("j", "p", 0))
	got := mustClaim(t, s, "w1", base, time.Hour)
	// An adapter does what Update says, whatever the status change (the
	// Service's own state machine decides which changes it makes).
	got.Status, got.LeaseOwner, got.LeaseUntil = transcribe.StatusQueued, "", time.Time{}
	mustUpdate(t, s, got)
	again := mustClaim(t, s, "w2", base.Add(time.Second), time.Hour)
	if again.ID != "j" || again.LeaseOwner != "w2" {
		t.Errorf("requeued job claimed as %+v", again)
	}
	// A queued record is claimable whatever lease fields it carries.
	r := rec("q", "p", 1)
	r.LeaseOwner, r.LeaseUntil = "old", base.Add(48*time.Hour)
	mustCreate(t, s, r)
	if got := mustClaim(t, s, "w3", base.Add(time.Second), time.Minute); got.ID != "q" || got.LeaseOwner != "w3" {
		t.Errorf("queued record with stale lease fields claimed as %+v", got)
	}
}

// testExtendLease: ExtendLease moves only LeaseUntil, and an owner whose
// lease was cleared (the transcript was deleted) has lost it. The other
// lease rules are queuetest's Extend.
func testExtendLease(t *testing.T, s driver.Store) {
	ctx := t.Context()
	mustCreate(t, s, rec("j", "p", 0))
	claimed := mustClaim(t, s, "w1", base, time.Minute)
	until := base.Add(5 * time.Minute)
	if err := s.ExtendLease(ctx, driver.Lease{ID: "j", Owner: "w1", Until: until}); err != nil {
		t.Fatalf("ExtendLease by owner: %v", err)
	}
	want := *claimed
	want.LeaseUntil = until
	if d := diffRecord(mustGet(t, s, "j"), &want); d != "" {
		t.Fatalf("after ExtendLease: %s", d)
	}
	// After the lease is cleared (deletion), the owner has lost it.
	r := mustGet(t, s, "j")
	r.LeaseOwner, r.LeaseUntil, r.Deleted = "", time.Time{}, true
	mustUpdate(t, s, r)
	if err := s.ExtendLease(ctx, driver.Lease{ID: "j", Owner: "w1", Until: base.Add(time.Hour)}); !errors.Is(err, transcribe.ErrLeaseLost) {
		t.Errorf("ExtendLease after the lease was cleared: err = %v, want ErrLeaseLost", err)
	}
	// An absent record: ErrNotFound or ErrLeaseLost.
	if err := s.ExtendLease(ctx, driver.Lease{ID: "missing", Owner: "w1", Until: base}); !errors.Is(err, transcribe.ErrNotFound) && !errors.Is(err, transcribe.ErrLeaseLost) {
		t.Errorf("ExtendLease of an absent record: err = %v, want ErrNotFound or ErrLeaseLost", err)
	}
}

// testClaimsCounted: ClaimJob counts the claims of a record, and Update
// never changes the count.
func testClaimsCounted(t *testing.T, s driver.Store) {
	mustCreate(t, s, rec("j", "p", 0))
	for i := 1; i <= 3; i++ {
		got := mustClaim(t, s, fmt.Sprintf("w%d", i), base.Add(time.Duration(i)*time.Hour), time.Minute)
		if got.Claims != i {
			t.Fatalf("claim %d: Claims = %d", i, got.Claims)
		}
		got.Data = []byte(fmt.Sprintf("attempt %d", i))
		got.Claims = 100
		mustUpdate(t, s, got)
		if r := mustGet(t, s, "j"); r.Claims != i || string(r.Data) != fmt.Sprintf("attempt %d", i) {
			t.Fatalf("after claim %d and Update: Claims = %d, Data %q", i, r.Claims, r.Data)
		}
	}
}

// testWebhookStatus: SetWebhookStatus changes only WebhookStatus, without
// a lease check, even while a worker holds the record; ErrNotFound for an
// absent record.
func testWebhookStatus(t *testing.T, s driver.Store) {
	ctx := t.Context()
	mustCreate(t, s, rec("j", "p", 0), rec("k", "p", 1))
	claimed := mustClaim(t, s, "w1", base, time.Minute)
	if err := s.SetWebhookStatus(ctx, "j", 404); err != nil {
		t.Fatalf("SetWebhookStatus: %v", err)
	}
	want := *claimed
	want.WebhookStatus = 404
	if d := diffRecord(mustGet(t, s, "j"), &want); d != "" {
		t.Errorf("after SetWebhookStatus: %s", d)
	}
	// The worker's Update keeps the status code.
	claimed.Status = transcribe.StatusCompleted
	mustUpdate(t, s, claimed)
	if got := mustGet(t, s, "j"); got.WebhookStatus != 404 || got.Status != transcribe.StatusCompleted {
		t.Errorf("Update lost the webhook status: %d %s", got.WebhookStatus, got.Status)
	}
	if err := s.SetWebhookStatus(ctx, "j", 200); err != nil {
		t.Fatal(err)
	}
	if got := mustGet(t, s, "j"); got.WebhookStatus != 200 {
		t.Errorf("WebhookStatus = %d, want 200", got.WebhookStatus)
	}
	if got := mustGet(t, s, "k"); got.WebhookStatus != 0 {
		t.Errorf("SetWebhookStatus(j) changed k: %d", got.WebhookStatus)
	}
	if err := s.SetWebhookStatus(ctx, "missing", 200); !errors.Is(err, transcribe.ErrNotFound) {
		t.Errorf("SetWebhookStatus of an absent record: %v, want ErrNotFound", err)
	}
}
