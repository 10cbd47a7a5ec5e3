#include "lmdb_store/ident_name_groups.h"

#include <cstdint>

#include "lmdb_store/key_coding.h"

namespace datalog::store {

namespace {

static_assert(kNameTail == 2, "tails compare as 16-bit numbers");
inline unsigned tail_number(std::string_view tail) {
  return static_cast<unsigned>(static_cast<std::uint8_t>(tail[0])) << 8 | static_cast<std::uint8_t>(tail[1]);
}

}  // namespace

bool search_name_group(std::string_view payload, std::string_view tail, NameGroupPlace* place) {
  *place = NameGroupPlace{};
  if (tail.size() != kNameTail) return false;
  const unsigned wanted = tail_number(tail);
  std::size_t at = 0;
  while (at < payload.size()) {
    if (payload.size() - at < kNameTail) return false;
    const unsigned here = tail_number(payload.substr(at, kNameTail));
    if (here > wanted) break;  // tails are in order: it would go here
    std::int64_t id = 0;
    const std::size_t n = get_ordered_int(payload.substr(at + kNameTail), &id);
    if (n == 0) return false;
    if (here == wanted) {
      place->found = true;
      place->id = id;
      return true;
    }
    at += kNameTail + n;
  }
  place->insert_at = at;
  return true;
}

void insert_into_name_group(std::string_view payload, std::size_t insert_at, std::string_view tail,
                            EntityId id, std::string* out) {
  out->clear();
  out->reserve(payload.size() + kNameTail + 9);
  out->append(payload.substr(0, insert_at));
  out->append(tail);
  put_ordered_int(*out, id);
  out->append(payload.substr(insert_at));
}

}  // namespace datalog::store
