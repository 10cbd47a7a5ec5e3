// lmdb_store/visibility.h: which records of one fact are visible in a bi-temporal view.
//
// LANGUAGE.md §5 and §12, applied to the records of one (e, a, v), oldest first:
//  1. transaction time: keep records with tx <= as_of;
//  2. retractions: with R the latest retraction kept, an assertion is visible iff tx > R
//     (a Reassert, made after a retraction in the same transaction, iff tx >= R);
//  3. one row per valid-time window (valid_from, valid_to): the latest assertion of it;
//  4. valid time: keep valid_from <= valid_at < valid_to, unless any valid time is asked.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "lmdb_store/datom_layout.h"

namespace datalog::store {

using datalog::TimeView;

// Appends the visible records of group (one fact's records, in key order) to out.
// The visible datoms are moved out of group, which is left in a valid but unspecified state.
void append_visible(std::vector<Datom>& group, const TimeView& view, std::vector<Datom>& out);

// Rule 4: whether d's valid-time window holds the view's valid_at.
inline bool valid_in_view(const Datom& d, const TimeView& view) {
  return view.any_valid_time || (d.valid_from <= view.valid_at && view.valid_at < d.valid_to);
}

// Whether the only record of a fact is visible (the rules above for a group of one).
inline bool visible_alone(const Datom& d, const TimeView& view) {
  return d.tx <= view.as_of && d.op != Op::Retract && valid_in_view(d, view);
}

}  // namespace datalog::store
