module github.com/lockstorm/lockstorm/zoo/go-zero-v1.3.2

go 1.26.0

require (
	github.com/lockstorm/lockstorm v0.0.0
	github.com/zeromicro/go-zero v1.3.2
)

require (
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/dgryski/go-rendezvous v0.0.0-20200823014737-9f7001d12a5f // indirect
	github.com/go-redis/redis/v8 v8.11.4 // indirect
	github.com/redis/go-redis/v9 v9.23.0 // indirect
	github.com/spaolacci/murmur3 v1.1.0 // indirect
	go.opentelemetry.io/otel v1.44.0 // indirect
	go.opentelemetry.io/otel/trace v1.44.0 // indirect
	go.uber.org/atomic v1.12.0 // indirect
	go.uber.org/automaxprocs v1.4.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	gopkg.in/yaml.v2 v2.4.0 // indirect
)

replace github.com/lockstorm/lockstorm => ../..
