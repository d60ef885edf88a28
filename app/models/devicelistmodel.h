#pragma once

#include <QAbstractListModel>
#include <QByteArray>
#include <QString>
#include <vector>

namespace slicescope::models {

// A device the user can run GPU strategies on: a GPU detected here (measured) or a preset
// (modelled: no GPU is used, the model backend predicts the timeline).
struct DeviceChoice {
    enum class Kind { None, Detected, Preset };
    Kind kind = Kind::None;
    int index = 0;    // CUDA ordinal (Detected)
    QString presetId; // "h200" (Preset)
    QString name;     // "NVIDIA H200"
    QString computeCapability;
    int smCount = 0;
    bool modelOnly = false; // a preset CUDA 13 cannot run (cc < 7.5): fine to model
    friend bool operator==(const DeviceChoice&, const DeviceChoice&) = default;
};

// The devices `slicescope-cli devices --json` lists: detected GPUs first, then the presets.
class DeviceListModel : public QAbstractListModel {
    Q_OBJECT
  public:
    enum Role { KindRole = Qt::UserRole, KeyRole };

    explicit DeviceListModel(QObject* parent = nullptr);

    // Replaces the list from the CLI's JSON; false (and the list left empty) on malformed input.
    bool setFromJson(const QByteArray& json, QString* error = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

    const DeviceChoice& at(int row) const { return devices_.at(std::size_t(row)); }
    // "gpu:0" or "preset:h200": stable across starts, for QSettings.
    static QString keyOf(const DeviceChoice& device);
    int rowOfKey(const QString& key) const;
    int detectedCount() const;
    bool cudaBackendBuilt() const { return cudaBackend_; }
    // Why no GPU was detected, as the CLI said it; empty when one was.
    const QString& noDevicesReason() const { return noDevicesReason_; }

  private:
    std::vector<DeviceChoice> devices_;
    bool cudaBackend_ = false;
    QString noDevicesReason_;
};

} // namespace slicescope::models
