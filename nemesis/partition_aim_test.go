package nemesis

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// A partition aimed at a waiter comes second of every five aims (fifth on
// a lock that renews by itself, whose first aims are timed to renewals)
// and lasts past the waiter's acquire timeout, so that it gives up while
// cut off and its leave command is lost.
func TestPartitionWaiterAimOutlastsTheGiveUp(t *testing.T) {
	for _, renews := range []bool{false, true} {
		tp := topo3("c1", "c2", "c3")
		tp.TTL, tp.AcquireTimeout, tp.Renews = 500*time.Millisecond, time.Second, renews
		r := rand.New(rand.NewPCG(3, 4))
		want := map[bool]int{false: 1, true: 4}[renews]
		for nth := 0; nth < 10; nth++ {
			f := (&Partition{}).Aim(r, Fault{Kind: KindPartition}, tp, nth)
			isWaiter := slices.Equal(f.Clients, []string{TargetWaiter})
			if isWaiter != (nth%5 == want) {
				t.Fatalf("renews %v: aim %d cuts %v", renews, nth, f.Clients)
			}
			if isWaiter && f.Duration < tp.AcquireTimeout+tp.TTL/2 {
				t.Errorf("renews %v: a waiter's cut lasts %v, not past its acquire timeout %v", renews, f.Duration, tp.AcquireTimeout)
			}
		}
	}
}
