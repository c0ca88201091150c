package shard

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/lockstorm/lockstorm/internal/store"
)

// Folder is the folder of a store root holding the shard manifests.
const Folder = "shards"

// Kinds of sharded work.
const (
	KindCatalog = "catalog"
	KindSweep   = "sweep"
	KindRun     = "run"
	// KindCampaign is a campaign of package campaign (compare, power,
	// zoo...): its manifest's Name is "<command> <name>".
	KindCampaign = "campaign"
)

// Manifest is what a shard did, written to <store>/shards/ when it
// ends (also when interrupted): the work it was part of and the items it
// finished. `lockstorm merge` reads the manifests of all shards.
type Manifest struct {
	// Kind is KindCatalog, KindSweep or KindRun.
	Kind string `json:"kind"`
	// Name tells two works of a kind apart: the sweep's name, the run
	// campaign's test name; empty for the catalogue.
	Name string `json:"name,omitempty"`
	// K and N are the shard (K counts from 0).
	K int `json:"k"`
	N int `json:"n"`
	// Total is the number of items of the whole (unsharded) work.
	Total int `json:"total"`
	// Key is what every shard of one work must agree on (the catalogue's
	// rows and seed, the sweep's settings, the campaign's configuration
	// and base seed); merge refuses shards whose keys differ.
	Key json.RawMessage `json:"key"`
	// Items are the finished items of the shard, in order.
	Items []Item `json:"items"`
	// Interrupted is set when the shard stopped before all its items.
	Interrupted bool      `json:"interrupted,omitempty"`
	Started     time.Time `json:"started"`
	// Elapsed is how long the shard ran, in nanoseconds.
	Elapsed time.Duration `json:"elapsed_ns"`
	// Version is the lockstorm version that ran the shard.
	Version string `json:"version,omitempty"`

	// Root is the store root the manifest was read from (not stored).
	Root string `json:"-"`
}

// Item is one finished item of a shard.
type Item struct {
	// Index is the item's position (0-based) in the whole work's order.
	Index int `json:"index"`
	// Dir is the item's run folder relative to the store root ("" when
	// the item made none).
	Dir string `json:"dir,omitempty"`
	// Data is what the item's kind needs to rebuild its report (a
	// catalogue row's outcome, a sweep cell's result).
	Data json.RawMessage `json:"data,omitempty"`
}

// Shard is the manifest's shard.
func (m *Manifest) Shard() Shard { return Shard{K: m.K, N: m.N} }

// Label names the work: "sweep tiny", "catalog", "run counter-redlock".
func (m *Manifest) Label() string {
	if m.Name == "" {
		return m.Kind
	}
	return m.Kind + " " + m.Name
}

// FileName is the manifest's file name in Folder:
// <kind>[-<name>]-<K>-of-<N>.json.
func (m *Manifest) FileName() string {
	base := m.Kind
	if m.Name != "" {
		base += "-" + m.Name
	}
	return fmt.Sprintf("%s-%d-of-%d.json", base, m.K, m.N)
}

// SetKey stores v (JSON) as the manifest's key.
func (m *Manifest) SetKey(v any) error {
	b, err := json.Marshal(v)
	m.Key = b
	return err
}

// SameKey reports whether two manifests' keys are equal.
func (m *Manifest) SameKey(o *Manifest) bool {
	var a, b bytes.Buffer
	if json.Compact(&a, m.Key) != nil || json.Compact(&b, o.Key) != nil {
		return false
	}
	return bytes.Equal(a.Bytes(), b.Bytes())
}

// Add appends an item, data marshalled to JSON (nil for none).
func (m *Manifest) Add(index int, dir string, data any) error {
	it := Item{Index: index, Dir: filepath.ToSlash(dir)}
	if data != nil {
		b, err := json.Marshal(data)
		if err != nil {
			return err
		}
		it.Data = b
	}
	m.Items = append(m.Items, it)
	return nil
}

// Write writes the manifest into root/shards/ and returns its path.
func Write(root string, m *Manifest) (string, error) {
	path := filepath.Join(root, Folder, m.FileName())
	err := os.MkdirAll(filepath.Dir(path), 0o755)
	if err == nil {
		err = store.WriteJSON(path, m)
	}
	if err != nil {
		return "", fmt.Errorf("shard manifest: %w", err)
	}
	return path, nil
}

// Read reads the manifests of store root (root/shards/*.json), sorted by
// kind, name and shard. A root without manifests gives none and no error.
func Read(root string) ([]*Manifest, error) {
	files, err := filepath.Glob(filepath.Join(root, Folder, "*.json"))
	if err != nil {
		return nil, err
	}
	var out []*Manifest
	for _, f := range files {
		m := &Manifest{}
		if err := store.ReadJSON(f, m); err != nil {
			return nil, fmt.Errorf("%s: not a shard manifest: %v", f, err)
		}
		if m.Kind == "" || m.N < 1 || m.K < 0 || m.K >= m.N {
			return nil, fmt.Errorf("%s: not a shard manifest (kind %q, shard %d/%d)", f, m.Kind, m.K, m.N)
		}
		m.Root = root
		out = append(out, m)
	}
	slices.SortStableFunc(out, func(a, b *Manifest) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Name, b.Name), cmp.Compare(a.K, b.K))
	})
	return out, nil
}
