// runtime/store/internal/migrations.h
//
// The database schema as forward-only migrations. A released migration is never edited (a
// test pins each one's hash); a change is a new migration at the end. Applied in one
// IMMEDIATE transaction at open, so concurrent first opens are safe.
#pragma once

#include <span>
#include <string_view>

namespace agentrt::store {

struct Migration {
  int version;
  std::string_view description;
  std::string_view sql;  // statements run in order; the backfills of 5 and 6 run in code too
};

std::span<const Migration> Migrations();

}  // namespace agentrt::store
