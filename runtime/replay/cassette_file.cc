#include "runtime/replay/cassette_file.h"

#include <climits>
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "runtime/base/crc32c.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/string_view.h"
#include "runtime/replay/proto/cassette.pb.h"

namespace agentrt::replay {
namespace {

constexpr std::size_t kFrameBytes = 8;  // length and checksum

void PutFixed32(std::uint32_t value, std::string& out) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xFF));
}

std::uint32_t GetFixed32(std::string_view bytes) {
  std::uint32_t value = 0;
  for (int i = 3; i >= 0; --i) {
    value = (value << 8) | static_cast<unsigned char>(bytes[static_cast<std::size_t>(i)]);
  }
  return value;
}

bool HasUnknownFields(const google::protobuf::Message& message) {
  return !message.GetReflection()->GetUnknownFields(message).empty();
}

CassetteHeader HeaderOf(const v1::Header& h) {
  CassetteHeader header;
  header.created_by = h.created_by();
  header.notes = h.notes();
  header.program.assign(h.program().begin(), h.program().end());
  for (const v1::InputFile& input : h.inputs()) {
    header.inputs.push_back({input.role(), input.key(), input.path(), input.data()});
  }
  return header;
}

}  // namespace

std::string FrameHeader(const CassetteHeader& header) {
  v1::Record record;
  v1::Header* h = record.mutable_header();
  h->set_format_version(kCassetteFormatVersion);
  h->set_created_by(header.created_by);
  h->set_notes(header.notes);
  for (const std::string& arg : header.program) h->add_program(arg);
  for (const CassetteInput& input : header.inputs) {
    v1::InputFile* file = h->add_inputs();
    file->set_role(input.role);
    file->set_key(input.key);
    file->set_path(input.path);
    file->set_data(input.data);
  }
  return FrameRecord(record);
}

std::string FrameRecord(const v1::Record& record) {
  std::string payload = record.SerializeAsString();
  std::string out;
  out.reserve(kFrameBytes + payload.size());
  PutFixed32(static_cast<std::uint32_t>(payload.size()), out);
  PutFixed32(MaskCrc(Crc32c(payload)), out);
  out += payload;
  return out;
}

absl::StatusOr<Cassette> ParseCassette(std::string_view bytes, std::string_view name) {
  std::string where = absl::StrCat("cassette ", ToAbsl(name), ": ");
  if (!bytes.starts_with(kCassetteMagic)) {
    return absl::DataLossError(absl::StrCat(
        where, "not a cassette (it does not start with the cassette magic \"AGRTCAS\\n\"; ",
        bytes.size(), " bytes)"));
  }
  Cassette cassette;
  std::size_t offset = kCassetteMagic.size();
  for (int number = 1; offset < bytes.size(); ++number) {
    std::string record_at = absl::StrCat("record ", number, " at byte ", offset);
    std::size_t left = bytes.size() - offset;
    if (left < kFrameBytes) {
      cassette.SetTorn(absl::StrCat(record_at, " is cut: ", left, " of its ", kFrameBytes,
                                    " frame bytes were written"));
      break;
    }
    std::size_t length = GetFixed32(bytes.substr(offset, 4));
    std::uint32_t crc = UnmaskCrc(GetFixed32(bytes.substr(offset + 4, 4)));
    if (length > left - kFrameBytes) {
      cassette.SetTorn(absl::StrCat(record_at, " is cut: ", left - kFrameBytes, " of its ", length,
                                    " bytes were written"));
      break;
    }
    bool last = length == left - kFrameBytes;
    std::string_view payload = bytes.substr(offset + kFrameBytes, length);
    if (length > kMaxRecordBytes) {
      return absl::DataLossError(
          absl::StrCat(where, record_at, ": ", length, " bytes, more than a record may hold"));
    }
    if (Crc32c(payload) != crc) {
      // A write cut by a crash can leave the last record's bytes zeroed or half there.
      if (last) {
        cassette.SetTorn(absl::StrCat(record_at,
                                      " does not match its checksum (the write of "
                                      "the last record was cut)"));
        break;
      }
      return absl::DataLossError(
          absl::StrCat(where, record_at, " does not match its checksum: the file is damaged"));
    }
    v1::Record record;
    if (!record.ParseFromArray(payload.data(), static_cast<int>(payload.size()))) {
      return absl::DataLossError(absl::StrCat(where, record_at, " is not a cassette record"));
    }
    if (HasUnknownFields(record)) cassette.SetFromNewerBuild();
    if (number == 1 && !record.has_header()) {
      return absl::FailedPreconditionError(absl::StrCat(where, "the first record is not a header"));
    }
    switch (record.kind_case()) {
      case v1::Record::kHeader:
        if (record.header().format_version() != kCassetteFormatVersion) {
          return absl::FailedPreconditionError(
              absl::StrCat(where, record_at, ": format version ", record.header().format_version(),
                           " is not one this build reads (", kCassetteFormatVersion, ")"));
        }
        if (HasUnknownFields(record.header())) cassette.SetFromNewerBuild();
        for (const v1::InputFile& input : record.header().inputs()) {
          if (HasUnknownFields(input)) cassette.SetFromNewerBuild();
        }
        cassette.StartSession(HeaderOf(record.header()));
        break;
      case v1::Record::kExchange:
        if (absl::Status s = cassette.Add(std::move(*record.mutable_exchange())); !s.ok()) {
          return absl::Status(s.code(), absl::StrCat(where, s.message()));
        }
        break;
      case v1::Record::kChainHead:
        if (absl::Status s =
                cassette.SetChainHead({record.chain_head().seq(), record.chain_head().hash()});
            !s.ok()) {
          return absl::Status(s.code(), absl::StrCat(where, record_at, ": ", s.message()));
        }
        break;
      case v1::Record::KIND_NOT_SET:
        break;  // a newer build's kind of record, kept out of this build's way
    }
    offset += kFrameBytes + length;
  }
  return cassette;
}

absl::StatusOr<Cassette> ReadCassette(world::Filesystem& files, const std::string& path) {
  absl::StatusOr<std::string> bytes = files.ReadFile(path, world::kDefaultMaxFileBytes);
  if (!bytes.ok()) {
    return absl::Status(bytes.status().code(),
                        absl::StrCat("read cassette: ", bytes.status().message()));
  }
  return ParseCassette(*bytes, path);
}

absl::StatusOr<std::string> SerializeCassette(const Cassette& cassette) {
  if (cassette.from_newer_build()) {
    return absl::FailedPreconditionError(
        "the cassette holds fields or kinds this build does not know; writing it would drop "
        "them");
  }
  std::string out(kCassetteMagic);
  std::size_t next = 0;
  for (std::size_t session = 0; session < cassette.sessions().size(); ++session) {
    out += FrameHeader(cassette.sessions()[session]);
    for (; next < cassette.size() && cassette.session_of(next) == session; ++next) {
      v1::Record record;
      *record.mutable_exchange() = cassette.exchange(next);
      out += FrameRecord(record);
    }
  }
  if (cassette.chain_head().seq != 0) {
    v1::Record record;
    record.mutable_chain_head()->set_seq(cassette.chain_head().seq);
    record.mutable_chain_head()->set_hash(cassette.chain_head().hash);
    out += FrameRecord(record);
  }
  return out;
}

absl::Status WriteCassette(world::Filesystem& files, const std::string& path,
                           const Cassette& cassette) {
  absl::StatusOr<std::string> bytes = SerializeCassette(cassette);
  if (!bytes.ok()) {
    return absl::Status(bytes.status().code(),
                        absl::StrCat("write cassette ", path, ": ", bytes.status().message()));
  }
  return files.WriteAtomically(path, *bytes, "cassette");
}

}  // namespace agentrt::replay
