module uabench/adapters/gopcua

go 1.23

require (
	github.com/gopcua/opcua v0.8.0
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.2
)

require golang.org/x/text v0.14.0

require github.com/google/uuid v1.6.0 // indirect
