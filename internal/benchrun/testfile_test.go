package benchrun

import (
	"runtime"
	"time"

	"github.com/lockstorm/lockstorm/nemesis"
)

// runTestFile is test.json as the harness writes it at the end of a
// complete run (harness's testFile): the configuration, the executed
// plan, the versions and the completion mark with the record count.
type runTestFile struct {
	Config    map[string]any    `json:"config"`
	Plan      *nemesis.Plan     `json:"plan"`
	Versions  map[string]string `json:"versions"`
	Completed bool              `json:"completed"`
	Records   int               `json:"records"`
}

// testFile is test.json of a folder of records records made from the
// generated history s, stored under storeDir.
//
// The configuration is the one `lockstorm run --lock fenced --workload
// counter --nemesis partition --nodes 1 --clients 8 --ttl 100ms --seed 42`
// stores (its defaults filled as Config.WithDefaults fills them), with the
// generated history's length as its time limit and its mean fault
// interval. It is written field by field, as stored JSON, so that it
// depends on the stored format only, not on where Config lives.
func testFile(s *scan, records int, storeDir string) runTestFile {
	cfg := map[string]any{
		"name": "fenced-counter", "lock": "fenced", "pause_model": "links", "topology": "standalone",
		"workload": "counter", "nemesis": []string{nemesis.KindPartition},
		"nodes": 1, "clients": clients, "ttl_ns": 100 * time.Millisecond, "renew_every_ns": 0,
		"fencing": true, "persistence": "none", "time_limit_ns": s.end, "seed": 42,
		"store": storeDir, "provider": "local", "external": map[string]any{},
		"fault_interval_ns": 300 * time.Millisecond, "min_coverage": 1, "target_holder": 0.8,
		"workload_options": map[string]any{
			"Key": "lockstorm", "HoldMin": 5 * time.Millisecond, "HoldMax": 25 * time.Millisecond,
			"AcquireTimeout": 200 * time.Millisecond, "OpTimeout": 400 * time.Millisecond,
			"Think": 5 * time.Millisecond, "Tick": 400 * time.Millisecond, "Heartbeat": 20 * time.Millisecond,
		},
		"keep_cluster_dir": false,
	}
	return runTestFile{Config: cfg, Plan: s.plan(), Completed: true, Records: records,
		Versions: map[string]string{"go": runtime.Version(), "lock": "fenced", "lockstorm": "bench"}}
}
