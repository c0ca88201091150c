package nemesis

import (
	"github.com/lockstorm/lockstorm/cluster/clustertest"

	"context"
	"errors"
	"testing"
)

// The client-crash fault calls the harness's hook with the drawn client,
// fails with ErrNoHook without one, and Stop undoes nothing.
func TestClientCrashCallsHook(t *testing.T) {
	var crashed []string
	env := Env{CrashClient: func(ctx context.Context, cl string) error {
		crashed = append(crashed, cl)
		return nil
	}}
	cc := &ClientCrash{Env: env}
	f := cc.Draw(NewRand(5), topo3("c1", "c2", "c3"))
	clustertest.Must(t, cc.Start(context.Background(), f))
	clustertest.Must(t, cc.Stop(context.Background(), f))
	if len(crashed) != 1 || crashed[0] != f.Clients[0] {
		t.Errorf("hook saw %v, want [%s]", crashed, f.Clients[0])
	}
	if err := (&ClientCrash{}).Start(context.Background(), f); !errors.Is(err, ErrNoHook) {
		t.Errorf("Start without hook: %v, want ErrNoHook", err)
	}
	if err := cc.Start(context.Background(), Fault{Kind: KindClientCrash}); !errors.Is(err, ErrBadFault) {
		t.Errorf("Start without client: %v, want ErrBadFault", err)
	}
}
