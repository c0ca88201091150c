// Package merge combines the stores of a sharded campaign (`catalog`,
// `sweep` or `run --runs` with --shard K/N on many machines) into one
// store with the report the unsharded command writes, and one JUnit
// document: `lockstorm merge DIR...`.
//
// Each input is a store root holding shard manifests (shards/*.json), or
// a folder whose subfolders are such stores (the layout GitHub's
// download-artifact gives). The manifests must be every shard of one
// work, each once, with the same settings (shard.Combine); the run
// folders they list are copied into the output store under the same
// names, so the merged report links work.
package merge

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/internal/shard"
)

// ErrMerge marks inputs that cannot be merged (shard.ErrMerge).
var ErrMerge = shard.ErrMerge

// Options configure a merge.
type Options struct {
	// Inputs are the shards' store roots (or folders of them).
	Inputs []string
	// Out is the merged store's root.
	Out string
	// Stdout receives the report the unsharded command prints (the
	// catalogue table, the sweep's table and recommendation, the
	// campaign summary). Default io.Discard.
	Stdout io.Writer
}

// Result is a merged work.
type Result struct {
	// Kind is shard.KindCatalog, KindSweep or KindRun; Work the united
	// shards.
	Kind string
	Work *shard.Work
	// JUnit is the merged JUnit XML, as the unsharded command's --junit.
	JUnit []byte
	// Status is the outcome the unsharded command's exit status follows:
	// valid (0), invalid (1: a catalogue row disagrees, a campaign run is
	// invalid) or unknown (3: some shard was interrupted, a run unknown).
	Status checker.Validity
	// Summary is one line on the merged work.
	Summary string
	// Report is the main file of the merged report.
	Report string
}

// Merge reads the inputs' manifests, checks they are the shards of one
// work and writes the merged store and report. Errors about the inputs
// wrap ErrMerge and are one line.
func Merge(o Options) (*Result, error) {
	if o.Stdout == nil {
		o.Stdout = io.Discard
	}
	if len(o.Inputs) == 0 {
		return nil, fmt.Errorf("%w: name the shards' store folders", ErrMerge)
	}
	var ms []*shard.Manifest
	for _, in := range o.Inputs {
		found, err := manifests(in)
		if err != nil {
			return nil, err
		}
		ms = append(ms, found...)
	}
	w, err := shard.Combine(ms)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return nil, fmt.Errorf("%w: --out %s: %v", ErrMerge, o.Out, err)
	}
	dirs, err := copyRuns(w, o.Out)
	if err != nil {
		return nil, err
	}
	res := &Result{Kind: w.Kind, Work: w}
	switch w.Kind {
	case shard.KindSweep:
		err = fmt.Errorf("%w: these sweep shards were written by an older lockstorm, whose sweeps were not campaigns: run the shards again", ErrMerge)
	case shard.KindRun:
		err = fmt.Errorf("%w: these run --runs shards were written by an older lockstorm, whose run --runs was not a campaign: run the shards again", ErrMerge)
	case shard.KindCampaign:
		err = mergeCampaign(w, dirs, o, res)
	default:
		err = fmt.Errorf("%w: shards of an unknown kind %q (from a newer lockstorm?)", ErrMerge, w.Kind)
	}
	return res, err
}

// manifests reads the manifests of store root dir, or of its
// subfolders when it has none itself.
func manifests(dir string) ([]*shard.Manifest, error) {
	st, err := os.Stat(dir)
	if err != nil || !st.IsDir() {
		return nil, fmt.Errorf("%w: %s is not a folder", ErrMerge, dir)
	}
	ms, err := shard.Read(dir)
	if err != nil || len(ms) > 0 {
		return ms, wrap(err)
	}
	subs, _ := os.ReadDir(dir)
	for _, s := range subs {
		if !s.IsDir() {
			continue
		}
		found, err := shard.Read(filepath.Join(dir, s.Name()))
		if err != nil {
			return nil, wrap(err)
		}
		ms = append(ms, found...)
	}
	if len(ms) == 0 {
		return nil, fmt.Errorf("%w: %s holds no shard manifest (%s/*.json): was it the --store of catalog, sweep or run --runs with --shard K/N?", ErrMerge, dir, shard.Folder)
	}
	return ms, nil
}

func wrap(err error) error {
	if err == nil || errors.Is(err, ErrMerge) {
		return err
	}
	return fmt.Errorf("%w: %v", ErrMerge, err)
}
