package nemesis

import (
	"os"
	"testing"

	"github.com/lockstorm/lockstorm/cluster/clustertest"
)

// TestMain runs the tests, then fails the run if any redis-server child
// of this process or any run directory of it is left behind.
func TestMain(m *testing.M) { os.Exit(clustertest.Main(m)) }
