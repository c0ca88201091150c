// Package lockstormbin builds the lockstorm binary for tests that run
// process clients (`lockstorm client --lock NAME`) and puts it on PATH,
// as a user's installed lockstorm would be.
package lockstormbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

var (
	once  sync.Once
	dir   string
	built bool // dir is ours to remove
	err   error
)

// Env names a lockstorm binary already built from this checkout (an
// absolute path): `make test` builds bin/lockstorm once and sets it, so
// that no test package builds its own. Unset, each test process builds
// one.
const Env = "LOCKSTORM_TEST_BIN"

// OnPath builds ./cmd/lockstorm of this module into a temporary folder
// (once per test process), or takes the binary Env names, and prepends
// its folder to PATH. It returns the binary's path.
func OnPath() (string, error) {
	once.Do(func() {
		if bin := os.Getenv(Env); bin != "" {
			if st, serr := os.Stat(bin); serr != nil || st.IsDir() || !filepath.IsAbs(bin) || filepath.Base(bin) != "lockstorm" {
				err = fmt.Errorf("lockstormbin: %s=%q is not an absolute path to a lockstorm binary", Env, bin)
				return
			}
			dir = filepath.Dir(bin)
		} else {
			built = true
			var root string
			if dir, err = os.MkdirTemp("", "lockstorm-bin-"); err == nil {
				root, err = ModuleRoot()
			}
			if err != nil {
				return
			}
			cmd := exec.Command("go", "build", "-o", filepath.Join(dir, "lockstorm"), "./cmd/lockstorm")
			cmd.Dir = root
			if out, berr := cmd.CombinedOutput(); berr != nil {
				err = fmt.Errorf("lockstormbin: go build ./cmd/lockstorm: %v\n%s", berr, out)
				return
			}
		}
		err = os.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	})
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "lockstorm"), nil
}

// Cleanup removes the built binary's folder.
func Cleanup() {
	if built && dir != "" {
		os.RemoveAll(dir)
	}
}

// Module is this module's path, the first line of its go.mod.
const Module = "github.com/lockstorm/lockstorm"

// ModuleRoot is the folder of this module's go.mod, found upwards from
// the working folder (a test runs in its package's folder). It does not
// ask the source file's own path (runtime.Caller), which -trimpath
// removes: make test builds its tests with -trimpath, so that a new
// clone's compiles hit the build cache.
func ModuleRoot() (string, error) {
	d, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("lockstormbin: %w", err)
	}
	for {
		b, err := os.ReadFile(filepath.Join(d, "go.mod"))
		if err == nil && strings.HasPrefix(string(b), "module "+Module+"\n") {
			return d, nil
		}
		up := filepath.Dir(d)
		if up == d {
			return "", fmt.Errorf("lockstormbin: no go.mod of %s above the working folder", Module)
		}
		d = up
	}
}

// Main is a TestMain body for packages whose tests run process clients:
// it puts lockstorm on PATH, runs the tests through run (clustertest.Main,
// say), and removes the binary. A failed build fails the package.
func Main(m *testing.M, run func(*testing.M) int) int {
	if _, err := OnPath(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer Cleanup()
	return run(m)
}
