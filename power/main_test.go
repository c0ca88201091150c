package power

import (
	"os"
	"testing"

	"github.com/lockstorm/lockstorm/cluster/clustertest"
)

func TestMain(m *testing.M) { os.Exit(clustertest.Main(m)) }
