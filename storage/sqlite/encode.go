package sqlite

import (
	"fmt"
	"math"
	"time"
)

// which sorts before every other time, so "before now" comparisons treat
// an unset lease as expired and an unset NextAttempt as due.
const zeroTime = math.MinInt64

// minTime and maxTime bound the times a unix-nanosecond integer holds.
var (
	minTime = time.Unix(0, math.MinInt64+1)
	maxTime = time.Unix(0, math.MaxInt64)
)

func encTime(field string, t time.Time) (int64, error) {
	if t.IsZero() {
		return zeroTime, nil
	}
	if t.Before(minTime) || t.After(maxTime) {
		return 0, fmt.Errorf("sqlite: %s %v is outside the storable range (years 1678 to 2262)", field, t)
	}
	return t.UnixNano(), nil
}

func decTime(n int64) time.Time {
	if n == zeroTime {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// recordCols are the columns of a whole record; listCols leave out the
