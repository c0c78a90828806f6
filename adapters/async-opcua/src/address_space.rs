//! The standard address space of SPEC §4 in async-opcua's in-memory node manager
//! (SimpleNodeManager): the Object `uabench` under Objects and its variables, with string
//! NodeIds equal to their BrowseNames in urn:uabench:model, and the update loop's values.

use std::sync::Arc;

use opcua::nodes::{ObjectBuilder, Variable};
use opcua::server::address_space::AccessLevel;
use opcua::server::node_manager::memory::SimpleNodeManager;
use opcua::server::SubscriptionCache;
use opcua::types::{DataValue, DateTime, NodeId, ObjectId, QualifiedName, StatusCode, Variant};

use crate::config::ServerConfig;
use crate::model::{self, signal, REAL_VALUE, ROOT_OBJECT};

/// The NodeIds the update loop writes: Tick, then Signal_0 … Signal_{n-1}.
pub struct UpdatedNodes {
    pub tick: NodeId,
    pub signals: Vec<NodeId>,
}

fn variable(ns: u16, name: &str, value: impl Into<Variant>) -> Variable {
    Variable::new(&NodeId::new(ns, name), QualifiedName::new(ns, name), name, value)
}

/// Inserts every node of SPEC §4 into the manager's address space.
pub fn build(manager: &SimpleNodeManager, ns: u16, config: &ServerConfig) -> UpdatedNodes {
    let root = NodeId::new(ns, ROOT_OBJECT);
    let mut variables = vec![
        variable(ns, "Tick", 0u32),
        variable(ns, "Real", REAL_VALUE),
        variable(ns, "Page", model::page()),
        variable(ns, "SDD", opcua::types::ByteString::from(model::sdd())),
        variable(ns, "Image", opcua::types::ByteString::from(model::image())),
    ];
    for (name, length) in model::ARRAYS {
        variables.push(variable(ns, name, model::double_array(length)));
    }
    for i in 0..config.signals {
        variables.push(variable(ns, &format!("Signal_{i}"), signal(i as u64, 0)));
    }
    for j in 0..config.writes {
        let mut write = variable(ns, &format!("Write_{j}"), 0.0f64);
        write.set_writable(true);
        write.set_user_access_level(AccessLevel::CURRENT_READ | AccessLevel::CURRENT_WRITE);
        variables.push(write);
    }
    {
        let space = manager.address_space();
        let mut space = space.write();
        ObjectBuilder::new(&root, QualifiedName::new(ns, ROOT_OBJECT), ROOT_OBJECT)
            .organized_by(ObjectId::ObjectsFolder)
            .insert(&mut *space);
        space.add_variables(variables, &root);
    }
    UpdatedNodes {
        tick: NodeId::new(ns, "Tick"),
        signals: (0..config.signals)
            .map(|i| NodeId::new(ns, format!("Signal_{i}")))
            .collect(),
    }
}

fn data_value(value: Variant, now: &DateTime) -> DataValue {
    DataValue {
        value: Some(value),
        status: Some(StatusCode::Good),
        source_timestamp: Some(*now),
        source_picoseconds: None,
        server_timestamp: Some(*now),
        server_picoseconds: None,
    }
}

/// Sets Tick = t and every Signal_i = signal(i, t), all with one SourceTimestamp, in one call
/// (the SDK holds its address-space lock over the whole batch and notifies subscriptions).
pub fn update(manager: &Arc<SimpleNodeManager>, subscriptions: &SubscriptionCache, nodes: &UpdatedNodes, t: u64) {
    let now = DateTime::now();
    let values = std::iter::once((&nodes.tick, None, data_value(Variant::UInt32(t as u32), &now))).chain(
        nodes
            .signals
            .iter()
            .enumerate()
            .map(|(i, id)| (id, None, data_value(Variant::Float(signal(i as u64, t)), &now))),
    );
    if let Err(status) = manager.set_values(subscriptions, values) {
        eprintln!("update loop: {status}");
    }
}
