// Server: the `nodesets` key (SPEC §4, Imported information models). gopcua 0.8.0 has a
// run-time NodeSet2 loader, server.Server.ImportNodeSet (server/nodeset2_import.go), which
// server.New uses for namespace 0, but it cannot import a companion model into a server:
//   - namespacesImportNodeSet adds a new namespace for every URI of the file's NamespaceUris,
//     one the server already has included (Server.AddNamespace compares namespace objects, not
//     URIs), so after DI, IA and Machinery the NamespaceArray holds DI three times and IA twice;
//   - nodesImportNodeSet and refsImportNodeSet take each NodeId as written
//     (ua.MustParseNodeID(NodeIdAttr)): the file's ns=1 is the server's namespace 1 whatever URI
//     that is: imported after the standard address space, DI's nodes land in urn:uabench:model;
//     imported before it, IA's and Machinery's nodes (their own ns=1) land in DI's namespace,
//     over DI's nodes of the same number;
//   - a BrowseName keeps the file's "1:" prefix in its Name ("1:DeviceType").
//
// (It does add the inverse of each reference: DI alone links DeviceSet under Objects.) The
// adapter could only fix this by rewriting the decoded UANodeSet's identifiers itself, which is
// the loader's job: so a non-empty `nodesets` is not supported, before anything is built (the
// first of SPEC's checks). Seen with the model probe (README, "What gopcua 0.8.0 lacks").
package main

func serverNodesets(config *ServerConfig) error {
	if len(config.Nodesets) == 0 {
		return nil
	}
	return notSupported("key 'nodesets': gopcua %s's NodeSet2 loader (server.Server.ImportNodeSet, server/nodeset2_import.go) does not map a file's namespace indexes onto the server's: it adds a new namespace for every NamespaceUris entry, even one the server has, and puts each node in the server namespace of the file's own index (IA's and Machinery's ns=1 nodes land in DI's namespace), with the file's '1:' prefix left in BrowseName names", sdkVersion())
}
