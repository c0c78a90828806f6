// Server: the standard address space of SPEC §4 in gopcua's node-centric namespace
// (server.NodeNameSpace), and the update loop. Signal_i and Tick are value functions over one
// atomically swapped tick, so a read never sees a half-made update of one node and the update
// loop never writes a node while the server's service goroutine reads it.
package main

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/gopcua/opcua/id"
	"github.com/gopcua/opcua/server"
	"github.com/gopcua/opcua/server/attrs"
	"github.com/gopcua/opcua/ua"
)

// tickState is the update loop's current tick and the SourceTimestamp of that update.
type tickState struct {
	tick   uint32
	source time.Time
}

type addressSpace struct {
	srv     *server.Server
	ns      *server.NodeNameSpace
	current atomic.Pointer[tickState]
	// the nodes the update loop changes, for the server's data-change notifications
	ticking []*ua.NodeID
}

func sourced(value any, at time.Time) *ua.DataValue {
	return &ua.DataValue{
		EncodingMask:    ua.DataValueValue | ua.DataValueSourceTimestamp,
		Value:           ua.MustVariant(value),
		SourceTimestamp: at,
	}
}

// variable adds a variable with string NodeId = BrowseName under the uabench object.
func (a *addressSpace) variable(parent *server.Node, name string, dataType uint32, valueRank int32, writable bool, value server.ValueFunc) *server.Node {
	access := byte(ua.AccessLevelTypeCurrentRead)
	if writable {
		access |= byte(ua.AccessLevelTypeCurrentWrite)
	}
	attributes := a.named(name, ua.NodeClassVariable)
	// gopcua's Node.DataType (and so AddRef's TypeDefinition) wants an ExpandedNodeID here.
	attributes[ua.AttributeIDDataType] = server.DataValueFromValue(ua.NewNumericExpandedNodeID(0, dataType))
	attributes[ua.AttributeIDValueRank] = server.DataValueFromValue(valueRank)
	attributes[ua.AttributeIDAccessLevel] = server.DataValueFromValue(access)
	attributes[ua.AttributeIDUserAccessLevel] = server.DataValueFromValue(access)
	node := server.NewNode(ua.NewStringNodeID(a.ns.ID(), name), attributes, nil, value)
	a.ns.AddNode(node)
	parent.AddRef(node, id.HasComponent, true)
	return node
}

// named gives the attributes every node of the uabench namespace has: its class, and BrowseName
// and DisplayName both `name`.
func (a *addressSpace) named(name string, class ua.NodeClass) map[ua.AttributeID]*ua.DataValue {
	return map[ua.AttributeID]*ua.DataValue{
		ua.AttributeIDNodeClass:   server.DataValueFromValue(uint32(class)),
		ua.AttributeIDBrowseName:  server.DataValueFromValue(&ua.QualifiedName{NamespaceIndex: a.ns.ID(), Name: name}),
		ua.AttributeIDDisplayName: server.DataValueFromValue(attrs.DisplayName(name, "")),
	}
}

func constant(value any, at time.Time) server.ValueFunc {
	dv := sourced(value, at)
	return func() *ua.DataValue { return dv }
}

func newAddressSpace(srv *server.Server, signals, writes int) *addressSpace {
	a := &addressSpace{srv: srv, ns: server.NewNodeNameSpace(srv, namespaceURI)}
	started := time.Now()
	a.current.Store(&tickState{tick: 0, source: started})

	objects := srv.Node(ua.NewNumericNodeID(0, id.ObjectsFolder))
	root := server.NewNode(ua.NewStringNodeID(a.ns.ID(), rootObject), a.named(rootObject, ua.NodeClassObject), nil, nil)
	a.ns.AddNode(root)
	objects.AddRef(root, id.Organizes, true)

	const scalar, oneDimension = int32(-1), int32(1)
	tick := a.variable(root, "Tick", id.UInt32, scalar, false, func() *ua.DataValue {
		st := a.current.Load()
		return sourced(st.tick, st.source)
	})
	a.ticking = append(a.ticking, tick.ID())
	for i := 0; i < signals; i++ {
		i := i
		n := a.variable(root, fmt.Sprintf("Signal_%d", i), id.Float, scalar, false, func() *ua.DataValue {
			st := a.current.Load()
			return sourced(signal(i, uint64(st.tick)), st.source)
		})
		a.ticking = append(a.ticking, n.ID())
	}
	a.variable(root, "Real", id.Float, scalar, false, constant(realValue, started))
	a.variable(root, "Page", id.Int16, oneDimension, false, constant(page(), started))
	a.variable(root, "SDD", id.ByteString, scalar, false, constant(sdd(), started))
	a.variable(root, "Image", id.ByteString, scalar, false, constant(image(), started))
	for name, length := range arrays {
		a.variable(root, name, id.Double, oneDimension, false, constant(doubleArray(length), started))
	}
	for j := 0; j < writes; j++ {
		// A Write replaces the node's value function with the value written (Node.SetAttribute).
		a.variable(root, fmt.Sprintf("Write_%d", j), id.Double, scalar, true, constant(0.0, started))
	}
	return a
}

// updateLoop: every interval t goes up by one, Tick and every Signal_i change with it under one
// SourceTimestamp (SPEC §4), and the server is told so for its monitored items (gopcua's server
// samples nothing itself: ChangeNotification pushes the node's value to its subscriptions).
func (a *addressSpace) updateLoop(ctx context.Context, interval time.Duration) {
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-ticker.C:
			previous := a.current.Load()
			a.current.Store(&tickState{tick: previous.tick + 1, source: now})
			for _, n := range a.ticking {
				a.srv.ChangeNotification(n)
			}
		}
	}
}
