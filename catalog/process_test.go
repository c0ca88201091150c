package catalog

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/harness"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/internal/store"
)

// The pause a renewable lock "survives" in process is an artefact of the
// links-only pause: the same plan (row 17's) on the same Go lock is valid
// in process, where the watchdog goroutine keeps running and warns the
// holder, and invalid when the lock runs as a process that SIGSTOP
// freezes, watchdog included.
func TestRealPauseFreezesTheWatchdog(t *testing.T) {
	for _, tc := range []struct {
		name, cmd, model string
		want             checker.Validity
	}{
		{"in-process/links", "", config.PauseLinks, checker.Valid},
		{"process/sigstop", "lockstorm client --lock renewable", config.PauseProcess, checker.Invalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := RenewablePause("renewable", tc.model)
			cfg.ClientCmd, cfg.Seed, cfg.Store = tc.cmd, 17, t.TempDir()
			res, err := harness.Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if res.Verdict.Valid != tc.want {
				log, _ := os.ReadFile(filepath.Join(res.Dir, store.LogFile))
				t.Fatalf("verdict %v, want %v:\n%s\nlockstorm.log:\n%s", res.Verdict.Valid, tc.want, res.Verdict, log)
			}
			lost := 0
			_ = res.EachRecord(func(op *history.Op) {
				if op.F == history.FLost && op.Type == history.OK {
					lost++
				}
			})
			// In process the watchdog tells the holder; a frozen one cannot.
			if tc.want == checker.Valid && lost == 0 {
				t.Error("valid, but no holder was told of its loss: the pauses did not bite")
			}
		})
	}
}
