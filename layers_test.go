package lockstorm_test

import (
	"errors"
	"fmt"
	"go/build"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// modulePath is the import path of the module's root package.
const modulePath = "github.com/lockstorm/lockstorm"

// layer is one floor of the module: packages that may import any package
// of a lower floor, never one of their own floor or above (a back stair).
type layer struct {
	name string
	pkgs []string // paths relative to the module root; "." is the root
}

// layers are the module's floors, lowest first, each package on exactly
// one. A package may import packages of lower floors and under its own
// folder; packages under internal/ only packages under internal/.
// config names cluster/docker and lockimpl/adapters without importing
// them, so a program that only reads runs links neither.
var layers = []layer{
	{"internal floor", []string{"internal/browsertest", "internal/child", "internal/ctxtime", "internal/lockstormbin",
		"internal/pauseclock", "internal/store", "internal/storetest", "internal/workpool", "internal/benchrun",
		"internal/soak", "cluster/internal/host"}},
	{"internal helpers", []string{"internal/page", "internal/shard", "cluster/internal/redisadmin"}},
	{"leaf helpers", []string{"history", "hashslot", "resource", "clockwatch", "clients/python"}},
	{"the lease model (over the history)", []string{"lease"}},
	{"cores: locks, cluster links, checkers, the history test kit", []string{"lockimpl", "cluster", "checker", "history/historytest"}},
	{"over the cores", []string{"protocol", "workloads", "coverage", "cluster/local", "cluster/external"}},
	{"process clients, Redis Cluster", []string{"procclient", "cluster/rediscluster"}},
	{"faults", []string{"nemesis"}},
	{"configuration", []string{"config"}},
	{"what config names without importing, the judge", []string{"cluster/docker", "lockimpl/adapters", "analysis"}},
	{"one run, its report, the cluster test kit", []string{"harness", "reports", "cluster/clustertest"}},
	{"many runs, shrinking, the lock test kit", []string{"campaign", "repro", "cluster/clustertest/locktest"}},
	{"the Go API", []string{"."}},
	{"detection power (its detection time is the catalogue's too)", []string{"power"}},
	{"the catalogue", []string{"catalog"}},
	{"the lock zoo", []string{"zoo"}},
	{"sweeps", []string{"sweep"}},
	{"comparisons, merges", []string{"compare", "merge"}},
	{"the command, the CI example", []string{"cmd/lockstorm", "docs/ci/go-test"}},
}

// TestNoBackStairs fails on every import of a package of the module that
// does not go down the floors of layers, and on every package the table
// misses or names in vain.
func TestNoBackStairs(t *testing.T) {
	imports, err := moduleImports(".")
	if err != nil {
		t.Fatal(err)
	}
	floor := map[string]int{}
	for i, l := range layers {
		for _, p := range l.pkgs {
			if _, twice := floor[p]; twice {
				t.Errorf("package %s is on two floors of layers", p)
			}
			floor[p] = i
		}
	}
	for p := range floor {
		if _, ok := imports[p]; !ok {
			t.Errorf("layers names package %s, which the module does not have: remove it", p)
		}
	}
	var bad []string
	for _, p := range slices.Sorted(maps.Keys(imports)) {
		if _, ok := floor[p]; !ok {
			bad = append(bad, fmt.Sprintf("package %s is on no floor: add it to layers in layers_test.go", p))
			continue
		}
		for _, dep := range imports[p] {
			if why := backStair(p, dep, floor); why != "" {
				bad = append(bad, why)
			}
		}
	}
	if len(bad) > 0 {
		t.Errorf("%d back-stair imports or unplaced packages:\n%s", len(bad), strings.Join(bad, "\n"))
	}
}

// backStair says why p's import of dep climbs (empty when it does not).
func backStair(p, dep string, floor map[string]int) string {
	if underInternal(p) && !underInternal(dep) {
		return fmt.Sprintf("%s imports %s: a package under internal/ imports only packages under internal/", p, dep)
	}
	if p != "." && strings.HasPrefix(dep, p+"/") {
		return "" // a package may use the packages under its own folder
	}
	df, ok := floor[dep]
	if !ok {
		return "" // reported as a package on no floor
	}
	if pf := floor[p]; df >= pf {
		return fmt.Sprintf("%s (floor %d, %s) imports %s (floor %d, %s)", p, pf, layers[pf].name, dep, df, layers[df].name)
	}
	return ""
}

// underInternal reports whether the package p is under an internal/ folder.
func underInternal(p string) bool { return slices.Contains(strings.Split(p, "/"), "internal") }

// moduleImports maps every package of the module rooted at root (paths
// relative to it; "." is the root) to the module's packages its non-test
// files import. Folders with a go.mod of their own (the zoo's Go entries)
// are other modules and left out, as are testdata and hidden folders.
func moduleImports(root string) (map[string][]string, error) {
	out := map[string][]string{}
	err := filepath.WalkDir(root, func(dir string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		name := d.Name()
		if dir != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
			return filepath.SkipDir
		}
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil && dir != root {
			return filepath.SkipDir
		}
		pkg, err := build.ImportDir(dir, 0)
		if _, none := errors.AsType[*build.NoGoError](err); none {
			return nil
		} else if err != nil {
			return err
		}
		rel := filepath.ToSlash(filepath.Clean(dir))
		out[rel] = []string{}
		for _, imp := range pkg.Imports {
			if imp == modulePath {
				out[rel] = append(out[rel], ".")
			} else if r, ok := strings.CutPrefix(imp, modulePath+"/"); ok {
				out[rel] = append(out[rel], path.Clean(r))
			}
		}
		return nil
	})
	return out, err
}

// TestWhatIsWhereNamesEveryTopLevelPackage: the README's "What is where"
// table has a row for every top-level folder holding a package of the
// module, and for the root package's files.
func TestWhatIsWhereNamesEveryTopLevelPackage(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(readme), "\n## What is where\n")
	section, _, _ = strings.Cut(section, "\n## ")
	imports, err := moduleImports(".")
	if err != nil {
		t.Fatal(err)
	}
	for p := range imports {
		top, _, _ := strings.Cut(p, "/")
		name := top + "/"
		if p == "." {
			name = "lockstorm.go"
		}
		if !strings.Contains(section, "`"+name) {
			t.Errorf("README's What is where names no %s (package %s): add a row", name, p)
		}
	}
}
