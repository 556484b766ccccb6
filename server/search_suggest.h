#pragma once

// "Did you mean lmcache?": a search query with each word that finds nothing replaced by
// the engine or setting name it is a typo of, by the name resolver's own rules.

#include <functional>
#include <string>
#include <string_view>

namespace kb {
class Corpus;
}

namespace kb::http {

/// The query with every word `finds` says finds nothing replaced by the name of an engine
/// or a setting the resolver scores as that word's typo (at least 0.8, the repair
/// threshold); empty when no word was replaced.
std::string corrected_query(const Corpus& corpus,
                            const std::function<bool(std::string_view)>& finds, std::string_view q);

}  // namespace kb::http
