package sweep

import (
	"os"
	"testing"

	"github.com/lockstorm/lockstorm/cluster/clustertest"
	"github.com/lockstorm/lockstorm/internal/lockstormbin"
)

// TestMain puts a freshly built lockstorm on PATH (for tests whose
// clients are `lockstorm client` processes) and fails the package if a
// test leaves a redis-server behind.
func TestMain(m *testing.M) { os.Exit(lockstormbin.Main(m, clustertest.Main)) }
