package harness

import (
	"context"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/workloads"
)

// rateConfig is a run of 64 clients on the single lock with tiny holds
// and think times (100 µs) and acquires that give up after 10 ms (at least one SET each): as many
// records per second as the harness can make. The TTL (1 s, 100 ms per
// command) is long enough that no command times out on a loaded machine:
// a timed-out connection is closed and dialled again through its proxy,
// which costs more than the command.
func rateConfig(b *testing.B, limit time.Duration) Config {
	tiny := 100 * time.Microsecond
	return Config{Lock: "single", Clients: 64, TTL: time.Second, TimeLimit: limit, Seed: 1,
		Store: b.TempDir(), MinCoverage: -1,
		Workloads: workloads.Options{HoldMin: tiny, HoldMax: tiny, Think: tiny, AcquireTimeout: 10 * time.Millisecond}}
}

// BenchmarkRunRecordRate runs 64 clients with tiny holds for 5 s and
// reports the records the harness recorded per second and the latency the
// proxies added per command (Result.Overhead). Target: >= 10k records/s.
func BenchmarkRunRecordRate(b *testing.B) {
	var rate, added float64
	n := 0
	for b.Loop() {
		res, err := Run(context.Background(), rateConfig(b, 5*time.Second))
		if err != nil {
			b.Fatal(err)
		}
		rate += res.Overhead.RecordsPerSec
		added += res.Overhead.ProxyAddedP50
		n++
	}
	b.ReportMetric(rate/float64(n), "records/s")
	b.ReportMetric(added/float64(n), "proxy-added-µs")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkCheckPerRecord checks the history of a real 3 s run of
// 64 clients (Checkers(res).Check, what a run does at its end) and
// reports the check's cost per record.
func BenchmarkCheckPerRecord(b *testing.B) {
	res, err := Run(context.Background(), rateConfig(b, 3*time.Second))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		Checkers(res).Check(ctx, res.History)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(res.History)), "ns/record")
	b.ReportMetric(float64(len(res.History)), "records")
}
