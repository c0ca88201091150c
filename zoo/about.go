package zoo

import (
	"os"
	"path/filepath"

	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/repro"
)

// About is what the zoo entry in a run's client folder says of its lock,
// for a reproduction's report (with the cell's expectation when the run
// was one); ok is false without an entry.
func About(cfg config.Config) (repro.About, bool) {
	if cfg.ClientDir == "" {
		return repro.About{}, false
	}
	if _, err := os.Stat(filepath.Join(cfg.ClientDir, ManifestFile)); err != nil {
		return repro.About{}, false
	}
	es, err := Load(cfg.ClientDir)
	if err != nil || len(es) != 1 {
		return repro.About{}, false
	}
	e := es[0]
	a := repro.About{Library: e.Library, Version: e.Version, Upstream: e.Upstream, Promise: e.Claims}
	for _, c := range e.Cells {
		if e.Config(c, 0, Options{}).Name == cfg.Name {
			a.Expected = c.Expected() + ". " + c.Why
			if c.Known != "" {
				a.Expected += " Known upstream: <" + c.Known + ">."
			}
		}
	}
	return a, true
}
