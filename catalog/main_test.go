package catalog

import (
	"os"
	"testing"

	"github.com/lockstorm/lockstorm/cluster/clustertest"
	"github.com/lockstorm/lockstorm/internal/lockstormbin"
)

// TestMain puts a freshly built lockstorm on PATH (process clients run
// `lockstorm client`) and fails the package if a test leaves a
// redis-server behind.
func TestMain(m *testing.M) { os.Exit(lockstormbin.Main(m, clustertest.Main)) }
