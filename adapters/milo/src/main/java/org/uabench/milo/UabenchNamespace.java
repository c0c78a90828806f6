package org.uabench.milo;

import static org.eclipse.milo.opcua.stack.core.types.builtin.unsigned.Unsigned.uint;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.eclipse.milo.opcua.sdk.core.AccessLevel;
import org.eclipse.milo.opcua.sdk.core.Reference;
import org.eclipse.milo.opcua.sdk.core.ValueRanks;
import org.eclipse.milo.opcua.sdk.server.Lifecycle;
import org.eclipse.milo.opcua.sdk.server.ManagedNamespaceWithLifecycle;
import org.eclipse.milo.opcua.sdk.server.OpcUaServer;
import org.eclipse.milo.opcua.sdk.server.items.DataItem;
import org.eclipse.milo.opcua.sdk.server.items.MonitoredItem;
import org.eclipse.milo.opcua.sdk.server.nodes.UaObjectNode;
import org.eclipse.milo.opcua.sdk.server.nodes.UaVariableNode;
import org.eclipse.milo.opcua.sdk.server.util.SubscriptionModel;
import org.eclipse.milo.opcua.stack.core.NodeIds;
import org.eclipse.milo.opcua.stack.core.types.builtin.ByteString;
import org.eclipse.milo.opcua.stack.core.types.builtin.DataValue;
import org.eclipse.milo.opcua.stack.core.types.builtin.DateTime;
import org.eclipse.milo.opcua.stack.core.types.builtin.LocalizedText;
import org.eclipse.milo.opcua.stack.core.types.builtin.NodeId;
import org.eclipse.milo.opcua.stack.core.types.builtin.StatusCode;
import org.eclipse.milo.opcua.stack.core.types.builtin.Variant;
import org.eclipse.milo.opcua.stack.core.types.builtin.unsigned.UInteger;
import org.slf4j.LoggerFactory;

/**
 * The standard address space of SPEC §4 in namespace urn:uabench:model: an Object "uabench"
 * under Objects holding the variables, and the update loop that advances the tick.
 */
final class UabenchNamespace extends ManagedNamespaceWithLifecycle {

  private final SubscriptionModel subscriptionModel;
  private final UaVariableNode[] signals;
  private UaVariableNode tick;
  private long t;

  UabenchNamespace(
      OpcUaServer server, int signalCount, int writeCount, int updateIntervalMs,
      ScheduledExecutorService updater) {
    super(server, Model.NAMESPACE_URI);
    this.signals = new UaVariableNode[signalCount];

    // Milo's subscriptions sample managed nodes; the SubscriptionModel does that sampling.
    subscriptionModel = new SubscriptionModel(server, this);
    getLifecycleManager().addLifecycle(subscriptionModel);
    getLifecycleManager().addStartupTask(() -> createNodes(writeCount));
    if (updateIntervalMs > 0) {
      getLifecycleManager().addLifecycle(new UpdateLoop(updater, updateIntervalMs));
    }
  }

  private void createNodes(int writeCount) {
    DateTime start = DateTime.now();
    UaObjectNode object =
        new UaObjectNode(
            getNodeContext(), newNodeId(Model.OBJECT_NAME), newQualifiedName(Model.OBJECT_NAME),
            LocalizedText.english(Model.OBJECT_NAME), LocalizedText.NULL_VALUE, uint(0), uint(0));
    object.addReference(
        new Reference(
            object.getNodeId(), NodeIds.HasTypeDefinition, NodeIds.BaseObjectType.expanded(), true));
    object.addReference(
        new Reference(
            object.getNodeId(), NodeIds.Organizes, NodeIds.ObjectsFolder.expanded(), false));
    getNodeManager().addNode(object);

    for (int i = 0; i < signals.length; i++) {
      signals[i] =
          variable(object, Model.signalName(i), NodeIds.Float, new Variant(Model.signal(i, 0)), start);
    }
    tick = variable(object, "Tick", NodeIds.UInt32, new Variant(uint(0)), start);
    variable(object, "Real", NodeIds.Float, new Variant(Model.REAL_VALUE), start);
    Short[] page = new Short[Model.PAGE_LENGTH];
    for (int k = 0; k < page.length; k++) {
      page[k] = Model.PAGE[k];
    }
    UaVariableNode pageNode = variable(object, "Page", NodeIds.Int16, new Variant(page), start);
    pageNode.setValueRank(ValueRanks.OneDimension);
    pageNode.setArrayDimensions(new UInteger[] {uint(Model.PAGE_LENGTH)});
    for (Map.Entry<String, double[]> array : new TreeMap<>(Model.ARRAYS).entrySet()) {
      Double[] boxed = new Double[array.getValue().length];
      for (int k = 0; k < boxed.length; k++) {
        boxed[k] = array.getValue()[k];
      }
      UaVariableNode arrayNode =
          variable(object, array.getKey(), NodeIds.Double, new Variant(boxed), start);
      arrayNode.setValueRank(ValueRanks.OneDimension);
      arrayNode.setArrayDimensions(new UInteger[] {uint(boxed.length)});
    }
    variable(object, "SDD", NodeIds.ByteString, new Variant(ByteString.of(Model.SDD)), start);
    variable(object, "Image", NodeIds.ByteString, new Variant(ByteString.of(Model.IMAGE)), start);
    for (int j = 0; j < writeCount; j++) {
      UaVariableNode node =
          variable(object, Model.writeName(j), NodeIds.Double, new Variant(0.0), start);
      node.setAccessLevel(AccessLevel.toValue(AccessLevel.READ_WRITE));
      node.setUserAccessLevel(AccessLevel.toValue(AccessLevel.READ_WRITE));
    }
  }

  private UaVariableNode variable(
      UaObjectNode parent, String name, NodeId dataType, Variant value, DateTime time) {
    UaVariableNode node =
        new UaVariableNode.UaVariableNodeBuilder(getNodeContext())
            .setNodeId(newNodeId(name))
            .setBrowseName(newQualifiedName(name))
            .setDisplayName(LocalizedText.english(name))
            .setDataType(dataType)
            .setTypeDefinition(NodeIds.BaseDataVariableType)
            .setAccessLevel(AccessLevel.READ_ONLY)
            .setUserAccessLevel(AccessLevel.READ_ONLY)
            .build();
    node.setValue(new DataValue(value, StatusCode.GOOD, time, time));
    getNodeManager().addNode(node);
    parent.addComponent(node);
    return node;
  }

  /** One tick: t+1, then Tick and every Signal_i, all with the same SourceTimestamp. */
  private void update() {
    t++;
    DateTime now = DateTime.now();
    tick.setValue(new DataValue(new Variant(uint(t & 0xFFFFFFFFL)), StatusCode.GOOD, now, now));
    for (int i = 0; i < signals.length; i++) {
      signals[i].setValue(
          new DataValue(new Variant(Model.signal(i, t)), StatusCode.GOOD, now, now));
    }
  }

  private final class UpdateLoop implements Lifecycle {
    private final ScheduledExecutorService updater;
    private final int intervalMs;
    private ScheduledFuture<?> task;

    UpdateLoop(ScheduledExecutorService updater, int intervalMs) {
      this.updater = updater;
      this.intervalMs = intervalMs;
    }

    @Override
    public void startup() {
      // A throwing task would silently end scheduleAtFixedRate: log and keep ticking.
      Runnable tickSafely =
          () -> {
            try {
              update();
            } catch (RuntimeException e) {
              LoggerFactory.getLogger(UabenchNamespace.class).error("update loop failed", e);
            }
          };
      task = updater.scheduleAtFixedRate(tickSafely, intervalMs, intervalMs, TimeUnit.MILLISECONDS);
    }

    @Override
    public void shutdown() {
      task.cancel(false);
    }
  }

  @Override
  public void onDataItemsCreated(List<DataItem> dataItems) {
    subscriptionModel.onDataItemsCreated(dataItems);
  }

  @Override
  public void onDataItemsModified(List<DataItem> dataItems) {
    subscriptionModel.onDataItemsModified(dataItems);
  }

  @Override
  public void onDataItemsDeleted(List<DataItem> dataItems) {
    subscriptionModel.onDataItemsDeleted(dataItems);
  }

  @Override
  public void onMonitoringModeChanged(List<MonitoredItem> monitoredItems) {
    subscriptionModel.onMonitoringModeChanged(monitoredItems);
  }
}
