// Builds the standard address space (SPEC §4) and runs its update loop.
import { DataType, StatusCodes, Variant, VariantArrayType } from "node-opcua";
import { ARRAYS, NAMESPACE_URI, REAL_VALUE, ROOT_OBJECT, doubleArray, image, page, sdd, signal } from "./model.js";

const READ_ONLY = { accessLevel: "CurrentRead", userAccessLevel: "CurrentRead" };
const READ_WRITE = { accessLevel: "CurrentRead | CurrentWrite", userAccessLevel: "CurrentRead | CurrentWrite" };

function addVariable(namespace, parent, name, dataType, value, access, valueRank = -1) {
  return namespace.addVariable({
    componentOf: parent,
    browseName: name,
    nodeId: `s=${name}`,
    dataType,
    valueRank,
    ...access,
    value,
  });
}

/** Populates `addressSpace`; returns the update loop's start/stop handles. */
export function buildAddressSpace(addressSpace, { signals, writes, update_interval_ms: intervalMs }) {
  const namespace = addressSpace.registerNamespace(NAMESPACE_URI);
  const root = namespace.addObject({
    organizedBy: addressSpace.rootFolder.objects,
    browseName: ROOT_OBJECT,
    nodeId: `s=${ROOT_OBJECT}`,
  });

  const tick = addVariable(namespace, root, "Tick", DataType.UInt32, { dataType: DataType.UInt32, value: 0 }, READ_ONLY);
  const signalNodes = [];
  for (let i = 0; i < signals; i++) {
    signalNodes.push(addVariable(namespace, root, `Signal_${i}`, DataType.Float,
      { dataType: DataType.Float, value: signal(i, 0) }, READ_ONLY));
  }
  addVariable(namespace, root, "Real", DataType.Float, { dataType: DataType.Float, value: REAL_VALUE }, READ_ONLY);
  addVariable(namespace, root, "Page", DataType.Int16,
    { dataType: DataType.Int16, arrayType: VariantArrayType.Array, value: page() }, READ_ONLY, 1);
  addVariable(namespace, root, "SDD", DataType.ByteString, { dataType: DataType.ByteString, value: sdd() }, READ_ONLY);
  addVariable(namespace, root, "Image", DataType.ByteString, { dataType: DataType.ByteString, value: image() }, READ_ONLY);
  for (const [name, length] of Object.entries(ARRAYS)) {
    addVariable(namespace, root, name, DataType.Double,
      { dataType: DataType.Double, arrayType: VariantArrayType.Array, value: doubleArray(length) }, READ_ONLY, 1);
  }
  for (let j = 0; j < writes; j++) {
    addVariable(namespace, root, `Write_${j}`, DataType.Double, { dataType: DataType.Double, value: 0.0 }, READ_WRITE);
  }

  // Tick and every Signal_i share one SourceTimestamp per update, set through
  // setValueFromSource so that monitored items see the change as it happens.
  let t = 0;
  const update = () => {
    t += 1;
    const now = new Date();
    tick.setValueFromSource(new Variant({ dataType: DataType.UInt32, value: t }), StatusCodes.Good, now);
    for (let i = 0; i < signalNodes.length; i++) {
      signalNodes[i].setValueFromSource(new Variant({ dataType: DataType.Float, value: signal(i, t) }), StatusCodes.Good, now);
    }
  };
  let timer = null;
  return {
    start() {
      if (intervalMs > 0) timer = setInterval(update, intervalMs);
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = null;
    },
  };
}
