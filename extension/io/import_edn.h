// extension/io/import_edn.h: EDN transaction data into the graph (datalog_import): the file
// holds one or more vectors, each what (transact [...]) takes — facts [e a v], [e a v {:valid-from
// ...}] and entity maps {:db/id ...} — read a piece at a time (edn_pieces.h). A valid-time map
// {:valid-from "ISO" :valid-to "ISO"} right before a vector is (transact {...} [...])'s: it
// applies to every fact of the vector, a fact's own map winning key by key. In autocommit mode
// each vector is a graph transaction of its own (its own counter, as one (transact ...) command
// each); inside BEGIN ... COMMIT they share the caller's. A file that begins with
// {:datalog/history ...} is a history instead (history_import.h).
#pragma once

#include "extension/io/import_target.h"

namespace datalog::ext::io {

Status import_edn_transactions(ImportTarget& target);

}  // namespace datalog::ext::io
