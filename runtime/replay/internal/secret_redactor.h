// runtime/replay/internal/secret_redactor.h
//
// What a cassette keeps of an exchange that carries OAuth secrets (a request marked
// world::HttpRequest::carries_secrets: a token request, a client registration): the same bytes
// with every secret value replaced by kRedacted, on the recording side and on the replaying side
// alike, so a replay matches the request it recorded and parses the answer it recorded, without
// the secret ever being written.
//  - RedactForm: the values of the secret fields of an application/x-www-form-urlencoded body
//    (client_secret, code, code_verifier, refresh_token, client_assertion, assertion,
//    subject_token, password), the rest byte for byte;
//  - JsonRedactor: the string values of the secret members of a JSON answer (access_token,
//    refresh_token, id_token, client_secret, registration_access_token), at any depth, fed the
//    body chunk by chunk as the network hands it over: each chunk's redacted bytes come out at
//    once (a value cut across chunks is still replaced whole), so a recording keeps the strict
//    order of its reads. A member name written with escapes ("access\u005ftoken") is decoded
//    before it is compared. Bytes that are not JSON pass through as they are.
#pragma once

#include <string>
#include <string_view>

namespace agentrt::replay::internal {

std::string RedactForm(std::string_view body);

class JsonRedactor {
 public:
  // Feed returns `chunk` with what it holds of secret values replaced.
  std::string Feed(std::string_view chunk);

 private:
  enum class State { kOutside, kString, kSecret };
  // Collect adds a decoded character to the string being read, up to kMaxName.
  void Collect(char c);
  // The longest member name collected (longer names are no secret's).
  static constexpr std::size_t kMaxName = 64;

  State state_ = State::kOutside;
  bool escape_ = false;  // the previous byte in a string was a backslash
  std::string unicode_;  // the hex digits of a \u escape being read ("u" + digits)
  std::string name_;     // the string being read, decoded (bounded)
  bool name_too_long_ = false;
  std::string last_;  // the last string closed, when only spaces followed it
  bool after_string_ = false;
  std::string key_;  // the member whose value comes next (after its ':')
  bool secret_next_ = false;
};

}  // namespace agentrt::replay::internal
