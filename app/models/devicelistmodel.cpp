#include "models/devicelistmodel.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace slicescope::models {

DeviceListModel::DeviceListModel(QObject* parent) : QAbstractListModel(parent) {}

bool DeviceListModel::setFromJson(const QByteArray& json, QString* error) {
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &parseError);
    std::vector<DeviceChoice> devices;
    bool ok = doc.isObject();
    if (!ok) {
        if (error) {
            *error = parseError.error != QJsonParseError::NoError
                         ? QStringLiteral("the device list is not JSON: %1")
                               .arg(parseError.errorString())
                         : QStringLiteral("the device list is not a JSON object");
        }
    }
    const QJsonObject root = doc.object();
    if (ok) {
        for (const QJsonValue& value : root.value(QStringLiteral("devices")).toArray()) {
            const QJsonObject o = value.toObject();
            DeviceChoice d;
            d.kind = DeviceChoice::Kind::Detected;
            d.index = o.value(QStringLiteral("index")).toInt();
            d.name = o.value(QStringLiteral("name")).toString();
            d.computeCapability = o.value(QStringLiteral("compute_capability")).toString();
            d.smCount = o.value(QStringLiteral("sm_count")).toInt();
            devices.push_back(d);
        }
        for (const QJsonValue& value : root.value(QStringLiteral("presets")).toArray()) {
            const QJsonObject o = value.toObject();
            DeviceChoice d;
            d.kind = DeviceChoice::Kind::Preset;
            d.presetId = o.value(QStringLiteral("id")).toString();
            d.name = o.value(QStringLiteral("name")).toString();
            d.computeCapability = o.value(QStringLiteral("compute_capability")).toString();
            d.smCount = o.value(QStringLiteral("sm_count")).toInt();
            d.modelOnly = !o.value(QStringLiteral("runnable_with_cuda13")).toBool(true);
            if (!d.presetId.isEmpty()) {
                devices.push_back(d);
            }
        }
    }
    beginResetModel();
    devices_ = std::move(devices);
    cudaBackend_ = ok && root.value(QStringLiteral("cuda_backend")).toBool();
    noDevicesReason_ = ok ? root.value(QStringLiteral("no_devices_reason")).toString() : QString();
    endResetModel();
    return ok;
}

int DeviceListModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(devices_.size());
}

QVariant DeviceListModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
        return {};
    }
    const DeviceChoice& d = devices_[std::size_t(index.row())];
    const bool detected = d.kind == DeviceChoice::Kind::Detected;
    switch (role) {
    case Qt::DisplayRole:
        return detected ? QStringLiteral("%1 (GPU %2, measured)").arg(d.name).arg(d.index)
                        : QStringLiteral("%1 (modelled)").arg(d.name);
    case Qt::ToolTipRole:
        return detected
                   ? QStringLiteral(
                         "%1: compute capability %2, %3 SMs. GPU strategies run on it under CUPTI.")
                         .arg(d.name, d.computeCapability)
                         .arg(d.smCount)
                   : QStringLiteral(
                         "%1 (preset %2): compute capability %3, %4 SMs. No GPU is used: the model "
                         "predicts copies and kernels from the preset's figures, and the runs are "
                         "marked modelled everywhere.%5")
                         .arg(d.name, d.presetId, d.computeCapability)
                         .arg(d.smCount)
                         .arg(d.modelOnly
                                  ? QStringLiteral(
                                        " (CUDA 13 cannot run on it; modelling still works.)")
                                  : QString());
    case KindRole:
        return int(d.kind);
    case KeyRole:
        return keyOf(d);
    default:
        return {};
    }
}

QString DeviceListModel::keyOf(const DeviceChoice& device) {
    switch (device.kind) {
    case DeviceChoice::Kind::Detected:
        return QStringLiteral("gpu:") + QString::number(device.index);
    case DeviceChoice::Kind::Preset:
        return QStringLiteral("preset:") + device.presetId;
    case DeviceChoice::Kind::None:
        break;
    }
    return {};
}

int DeviceListModel::rowOfKey(const QString& key) const {
    for (std::size_t i = 0; i < devices_.size(); ++i) {
        if (keyOf(devices_[i]) == key) {
            return int(i);
        }
    }
    return -1;
}

int DeviceListModel::detectedCount() const {
    int n = 0;
    for (const auto& d : devices_) {
        n += d.kind == DeviceChoice::Kind::Detected ? 1 : 0;
    }
    return n;
}

} // namespace slicescope::models
